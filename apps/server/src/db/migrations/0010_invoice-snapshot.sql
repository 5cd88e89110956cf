ALTER TABLE "credit_notes" ADD COLUMN "snapshot" jsonb;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "snapshot" jsonb;