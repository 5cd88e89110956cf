CREATE TABLE "credit_notes" (
	"id" text PRIMARY KEY NOT NULL,
	"invoice_id" text NOT NULL,
	"number" text NOT NULL,
	"total" integer NOT NULL,
	"tax" integer NOT NULL,
	"currency" text NOT NULL,
	"reason" text NOT NULL,
	"lines" jsonb NOT NULL,
	"refund_amount" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "credit_notes_number_unique" UNIQUE("number")
);
--> statement-breakpoint
CREATE TABLE "invoice_lines" (
	"id" text PRIMARY KEY NOT NULL,
	"billing_customer_id" text NOT NULL,
	"subscription_id" text,
	"invoice_id" text,
	"description" text NOT NULL,
	"amount" integer NOT NULL,
	"period_start" timestamp with time zone,
	"period_end" timestamp with time zone,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoice_number_sequences" (
	"prefix" text PRIMARY KEY NOT NULL,
	"last_number" integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "subtotal" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "total" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "tax_rate_basis_points" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "starting_balance" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "invoices" ADD COLUMN "ending_balance" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "credit_notes" ADD CONSTRAINT "credit_notes_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_billing_customer_id_billing_customers_id_fk" FOREIGN KEY ("billing_customer_id") REFERENCES "public"."billing_customers"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoice_lines" ADD CONSTRAINT "invoice_lines_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "credit_notes_invoice_idx" ON "credit_notes" USING btree ("invoice_id");--> statement-breakpoint
CREATE INDEX "invoice_lines_invoice_idx" ON "invoice_lines" USING btree ("invoice_id","position");--> statement-breakpoint
CREATE INDEX "invoice_lines_pending_idx" ON "invoice_lines" USING btree ("billing_customer_id","invoice_id");--> statement-breakpoint
-- Invoices issued before this migration keep working (docs/decisions/026): their one line is
-- their description, their totals are what was due, VAT 20% included (the demo rate), and the
-- local engine's invoices are renumbered FC-000001… in the order they were made, one gapless
-- sequence for the supplier, which the counter row then carries on.
INSERT INTO "invoice_lines" ("id", "billing_customer_id", "subscription_id", "invoice_id", "description", "amount", "period_start", "period_end", "position", "created_at")
SELECT 'il_' || "id", "billing_customer_id", "subscription_id", "id", "description", "amount_due", "period_start", "period_end", 0, "created_at" FROM "invoices";--> statement-breakpoint
UPDATE "invoices" SET "subtotal" = "amount_due", "total" = "amount_due";--> statement-breakpoint
UPDATE "invoices" SET "tax" = round("amount_due" * 2000 / 12000.0), "tax_rate_basis_points" = 2000
FROM "billing_customers" WHERE "billing_customers"."id" = "invoices"."billing_customer_id" AND "billing_customers"."provider" = 'local';--> statement-breakpoint
UPDATE "invoices" SET "number" = "numbered"."number"
FROM (
  SELECT "invoices"."id", 'FC-' || lpad((row_number() OVER (ORDER BY "invoices"."created_at", "invoices"."id"))::text, 6, '0') AS "number"
  FROM "invoices" JOIN "billing_customers" ON "billing_customers"."id" = "invoices"."billing_customer_id"
  WHERE "billing_customers"."provider" = 'local'
) AS "numbered"
WHERE "invoices"."id" = "numbered"."id";--> statement-breakpoint
INSERT INTO "invoice_number_sequences" ("prefix", "last_number")
SELECT 'FC', count(*) FROM "invoices" JOIN "billing_customers" ON "billing_customers"."id" = "invoices"."billing_customer_id"
WHERE "billing_customers"."provider" = 'local' HAVING count(*) > 0;--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_idx" ON "invoices" USING btree ("number");