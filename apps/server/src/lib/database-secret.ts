/** Signing secrets kept in app_settings belong to the database package (decision 171). */
export { ensureDatabaseSecret } from '@farmcam/db';
