ALTER TABLE "billing_customers" ADD COLUMN "details" jsonb;--> statement-breakpoint
ALTER TABLE "customers" ADD COLUMN "billing_details" jsonb;