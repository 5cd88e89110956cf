CREATE TABLE "mail_queue" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"kind" text NOT NULL,
	"to_address" text NOT NULL,
	"subject" text,
	"body" jsonb,
	"composer" text,
	"composer_data" jsonb,
	"dedupe_key" text,
	"status" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"send_before" timestamp with time zone,
	"claimed_by" uuid,
	"last_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone,
	CONSTRAINT "mail_queue_dedupe_key_unique" UNIQUE("dedupe_key")
);
--> statement-breakpoint
CREATE INDEX "mail_queue_due_idx" ON "mail_queue" USING btree ("next_attempt_at") WHERE "mail_queue"."status" = 'queued';--> statement-breakpoint
CREATE INDEX "mail_queue_sending_idx" ON "mail_queue" USING btree ("claimed_by") WHERE "mail_queue"."status" = 'sending';--> statement-breakpoint
CREATE INDEX "mail_queue_settled_idx" ON "mail_queue" USING btree ("settled_at") WHERE "mail_queue"."settled_at" is not null;--> statement-breakpoint
-- A new e-mail wakes the workers delivering the queue at once (docs/decisions/104): one
-- notification per statement, sent with the commit.
CREATE FUNCTION notify_mail_queue() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('mail_queue', '');
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER mail_queue_notify AFTER INSERT ON mail_queue
  FOR EACH STATEMENT EXECUTE FUNCTION notify_mail_queue();
