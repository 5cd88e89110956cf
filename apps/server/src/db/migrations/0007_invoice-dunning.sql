ALTER TABLE "invoices" ADD COLUMN "attempt_count" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "next_payment_attempt" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "invoices_next_attempt_idx" ON "invoices" USING btree ("next_payment_attempt") WHERE "invoices"."status" = 'open';