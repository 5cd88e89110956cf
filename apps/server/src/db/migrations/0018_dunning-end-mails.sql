CREATE TABLE "dunning_end_mails" (
	"subscription_id" text NOT NULL,
	"kind" text NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "dunning_end_mails_subscription_id_kind_pk" PRIMARY KEY("subscription_id","kind")
);
--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancellation_reason" text;--> statement-breakpoint
-- Canceled while a renewal was unpaid: the end of dunning (docs/decisions/108). Nothing is
-- e-mailed about these older cancellations: the e-mails look back three days at most.
UPDATE "subscriptions" SET "cancellation_reason" = 'payment_failed'
 WHERE "status" = 'canceled' AND "past_due_since" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "dunning_end_mails" ADD CONSTRAINT "dunning_end_mails_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE no action ON UPDATE no action;