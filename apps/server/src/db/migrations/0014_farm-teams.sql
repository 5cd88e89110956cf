CREATE TABLE "account_member_cameras" (
	"member_id" uuid NOT NULL,
	"iccid" text NOT NULL,
	CONSTRAINT "account_member_cameras_member_id_iccid_pk" PRIMARY KEY("member_id","iccid")
);
--> statement-breakpoint
CREATE TABLE "account_members" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"customer_id" uuid NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"all_cameras" boolean DEFAULT true NOT NULL,
	"access_until" timestamp with time zone,
	"accepted_at" timestamp with time zone,
	"removed_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "member_invitations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"member_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"voided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "member_invitations_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "actor_email" text;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "account_id" uuid;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "user_agent" text;--> statement-breakpoint
ALTER TABLE "login_tokens" ADD COLUMN "member_id" uuid;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "member_id" uuid;--> statement-breakpoint
ALTER TABLE "account_member_cameras" ADD CONSTRAINT "account_member_cameras_member_id_account_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."account_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_member_cameras" ADD CONSTRAINT "account_member_cameras_iccid_sims_iccid_fk" FOREIGN KEY ("iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "account_members" ADD CONSTRAINT "account_members_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_member_id_account_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."account_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "account_members_current_email_idx" ON "account_members" USING btree ("customer_id","email") WHERE removed_at is null;--> statement-breakpoint
CREATE INDEX "account_members_email_idx" ON "account_members" USING btree ("email");--> statement-breakpoint
CREATE INDEX "member_invitations_member_idx" ON "member_invitations" USING btree ("member_id");--> statement-breakpoint
ALTER TABLE "login_tokens" ADD CONSTRAINT "login_tokens_member_id_account_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."account_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "sessions" ADD CONSTRAINT "sessions_member_id_account_members_id_fk" FOREIGN KEY ("member_id") REFERENCES "public"."account_members"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "audit_log_account_at_idx" ON "audit_log" USING btree ("account_id","at");--> statement-breakpoint
CREATE INDEX "sessions_member_idx" ON "sessions" USING btree ("member_id");--> statement-breakpoint
-- The activity log reads audit entries by account (docs/decisions/092): earlier entries of a
-- customer, or of staff inside a customer's portal, belong to that customer's account.
UPDATE "audit_log" SET "account_id" = "on_behalf_of_customer_id" WHERE "on_behalf_of_customer_id" IS NOT NULL;--> statement-breakpoint
UPDATE "audit_log" SET "account_id" = "actor_id"::uuid
  WHERE "account_id" IS NULL AND "actor_type" = 'customer'
    AND "actor_id" ~ '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';--> statement-breakpoint
-- A member's sessions resolve to what their role, cameras and end date allow (decision 091).
-- When any of those change, every process drops those sessions from its cache at once, as for
-- the other session changes of decision 065.
CREATE FUNCTION notify_session_change_from_member() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed_member uuid;
BEGIN
  IF TG_TABLE_NAME = 'account_members' THEN
    changed_member := NEW.id;
  ELSIF TG_OP = 'DELETE' THEN
    changed_member := OLD.member_id;
  ELSE
    changed_member := NEW.member_id;
  END IF;
  PERFORM pg_notify('session_changes', token_hash)
    FROM sessions
    WHERE member_id = changed_member AND revoked_at IS NULL;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER account_members_session_changes AFTER UPDATE ON account_members
  FOR EACH ROW
  WHEN (
    ROW(OLD.email, OLD.role, OLD.all_cameras, OLD.access_until, OLD.removed_at)
    IS DISTINCT FROM
    ROW(NEW.email, NEW.role, NEW.all_cameras, NEW.access_until, NEW.removed_at)
  )
  EXECUTE FUNCTION notify_session_change_from_member();
--> statement-breakpoint
CREATE TRIGGER account_member_cameras_session_changes AFTER INSERT OR DELETE ON account_member_cameras
  FOR EACH ROW
  EXECUTE FUNCTION notify_session_change_from_member();
