CREATE TABLE "billing_engine_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "billing_engine_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"type" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"delivered_at" timestamp with time zone,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"next_attempt_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "dunning_mails" (
	"invoice_id" text NOT NULL,
	"attempt_count" integer NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dunning_mails_invoice_id_attempt_count_pk" PRIMARY KEY("invoice_id","attempt_count")
);
--> statement-breakpoint
ALTER TABLE "dunning_mails" ADD CONSTRAINT "dunning_mails_invoice_id_invoices_id_fk" FOREIGN KEY ("invoice_id") REFERENCES "public"."invoices"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "billing_engine_events_due_idx" ON "billing_engine_events" USING btree ("next_attempt_at") WHERE "billing_engine_events"."delivered_at" is null;