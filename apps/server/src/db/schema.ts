/**
 * The whole domain model lives in packages/db (`@farmcam/db/schema`), shared with the billing
 * packages that write the same tables (decision 171); the server's code imports it from here.
 */
export * from '@farmcam/db/schema';
