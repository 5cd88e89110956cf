CREATE TABLE "local_sms_messages" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sid" text NOT NULL,
	"direction" text NOT NULL,
	"to" text NOT NULL,
	"from" text NOT NULL,
	"body" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"person_id" uuid NOT NULL,
	"channel" text NOT NULL,
	"kind" text NOT NULL,
	"push_subscription_id" uuid,
	"phone" text,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"path" text NOT NULL,
	"status" text DEFAULT 'queued' NOT NULL,
	"due_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_at" timestamp with time zone,
	"sent_at" timestamp with time zone,
	"provider_message_id" text,
	"error" text,
	"summarised_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_people" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"member_id" uuid,
	"quiet_start_minute" integer,
	"quiet_end_minute" integer,
	"phone" text,
	"phone_verified_at" timestamp with time zone,
	"sms_stopped_at" timestamp with time zone,
	"sms_summary_sent_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "notification_preferences" (
	"person_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"email" boolean NOT NULL,
	"push" boolean NOT NULL,
	"sms" boolean NOT NULL,
	"overrides_quiet_hours" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "notification_preferences_person_id_kind_pk" PRIMARY KEY("person_id","kind")
);
--> statement-breakpoint
CREATE TABLE "phone_verifications" (
	"person_id" uuid PRIMARY KEY NOT NULL,
	"phone" text NOT NULL,
	"code_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "push_subscriptions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"person_id" uuid NOT NULL,
	"endpoint" text NOT NULL,
	"p256dh" text NOT NULL,
	"auth" text NOT NULL,
	"label" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_success_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_person_id_notification_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."notification_people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_deliveries" ADD CONSTRAINT "notification_deliveries_push_subscription_id_push_subscriptions_id_fk" FOREIGN KEY ("push_subscription_id") REFERENCES "public"."push_subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_people" ADD CONSTRAINT "notification_people_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_people" ADD CONSTRAINT "notification_people_member_id_account_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."account_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "notification_preferences" ADD CONSTRAINT "notification_preferences_person_id_notification_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."notification_people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "phone_verifications" ADD CONSTRAINT "phone_verifications_person_id_notification_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."notification_people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "push_subscriptions" ADD CONSTRAINT "push_subscriptions_person_id_notification_people_id_fk" FOREIGN KEY ("person_id") REFERENCES "public"."notification_people"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "local_sms_messages_sid_idx" ON "local_sms_messages" USING btree ("sid");--> statement-breakpoint
CREATE INDEX "local_sms_messages_created_idx" ON "local_sms_messages" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "notification_deliveries_due_idx" ON "notification_deliveries" USING btree ("due_at") WHERE "notification_deliveries"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "notification_deliveries_person_idx" ON "notification_deliveries" USING btree ("person_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "notification_deliveries_provider_idx" ON "notification_deliveries" USING btree ("provider_message_id") WHERE provider_message_id is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_people_owner_idx" ON "notification_people" USING btree ("customer_id") WHERE member_id is null;--> statement-breakpoint
CREATE UNIQUE INDEX "notification_people_member_idx" ON "notification_people" USING btree ("member_id") WHERE member_id is not null;--> statement-breakpoint
CREATE INDEX "notification_people_phone_idx" ON "notification_people" USING btree ("phone");--> statement-breakpoint
CREATE UNIQUE INDEX "push_subscriptions_endpoint_idx" ON "push_subscriptions" USING btree ("endpoint");--> statement-breakpoint
CREATE INDEX "push_subscriptions_person_idx" ON "push_subscriptions" USING btree ("person_id");--> statement-breakpoint
-- Decision 122: a member's camera-alert e-mails (silence, no clips) carried over as their choices
-- of e-mail for the two kinds they covered, before the column goes. Owners keep their defaults
-- (every e-mail, as before), so nothing is written for them.
INSERT INTO "notification_people" ("customer_id", "member_id")
SELECT "customer_id", "id" FROM "account_members" WHERE "camera_alerts";--> statement-breakpoint
INSERT INTO "notification_preferences" ("person_id", "kind", "email", "push", "sms", "overrides_quiet_hours")
SELECT p."id", k."kind", true, false, false, k."urgent"
FROM "notification_people" p
JOIN "account_members" m ON m."id" = p."member_id" AND m."camera_alerts"
CROSS JOIN (VALUES ('camera-silence', true), ('livestream-clips', false)) AS k("kind", "urgent");--> statement-breakpoint
ALTER TABLE "account_members" DROP COLUMN "camera_alerts";