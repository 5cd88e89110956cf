CREATE TABLE "account_alert_settings" (
	"customer_id" uuid PRIMARY KEY NOT NULL,
	"monthly_spend_alert_minor" integer,
	"currency" text DEFAULT 'GBP' NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "camera_heartbeats" (
	"sim_iccid" text PRIMARY KEY NOT NULL,
	"last_data_at" timestamp with time zone,
	"last_report_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "camera_silences" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"sim_iccid" text NOT NULL,
	"silent_since" timestamp with time zone NOT NULL,
	"detected_at" timestamp with time zone DEFAULT now() NOT NULL,
	"alerted_at" timestamp with time zone,
	"ended_at" timestamp with time zone,
	"recovery_alerted_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "camera_watch_settings" (
	"sim_iccid" text PRIMARY KEY NOT NULL,
	"silence_hours" integer DEFAULT 6,
	"data_alert_percent" integer DEFAULT 80,
	"pause_data_at_allowance" boolean DEFAULT false NOT NULL,
	"no_clip_hours" integer,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "data_caps" (
	"sim_iccid" text NOT NULL,
	"month" text NOT NULL,
	"capped_at" timestamp with time zone,
	"resumed_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "data_caps_sim_iccid_month_pk" PRIMARY KEY("sim_iccid","month")
);
--> statement-breakpoint
CREATE TABLE "livestream_link_views" (
	"subject" text NOT NULL,
	"livestream_id" uuid NOT NULL,
	"day" date NOT NULL,
	"site_host" text NOT NULL,
	"views" integer DEFAULT 0 NOT NULL,
	"refused" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "livestream_link_views_subject_day_site_host_pk" PRIMARY KEY("subject","day","site_host")
);
--> statement-breakpoint
CREATE TABLE "livestream_links" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"livestream_id" uuid NOT NULL,
	"token" text NOT NULL,
	"kind" text NOT NULL,
	"label" text NOT NULL,
	"allowed_domains" text[] DEFAULT '{}'::text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"replaces_id" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "livestream_links_token_unique" UNIQUE("token")
);
--> statement-breakpoint
CREATE TABLE "livestream_viewer_days" (
	"subject" text NOT NULL,
	"day" date NOT NULL,
	"viewer_hash" text NOT NULL,
	CONSTRAINT "livestream_viewer_days_subject_day_viewer_hash_pk" PRIMARY KEY("subject","day","viewer_hash")
);
--> statement-breakpoint
CREATE TABLE "spend_alerts" (
	"customer_id" uuid NOT NULL,
	"month" text NOT NULL,
	"amount_minor" integer NOT NULL,
	"sent_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "spend_alerts_customer_id_month_pk" PRIMARY KEY("customer_id","month")
);
--> statement-breakpoint
CREATE TABLE "timelapses" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"livestream_id" uuid NOT NULL,
	"sim_iccid" text NOT NULL,
	"day" date NOT NULL,
	"status" text NOT NULL,
	"storage_key" text,
	"clip_count" integer DEFAULT 0 NOT NULL,
	"frame_count" integer DEFAULT 0 NOT NULL,
	"duration_ms" integer,
	"size_bytes" bigint,
	"cpu_ms" integer,
	"error" text,
	"claimed_by" uuid,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "account_members" ADD COLUMN "camera_alerts" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "livestreams" ADD COLUMN "switch_off_warned_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "livestreams" ADD COLUMN "no_clip_alerted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sims" ADD COLUMN "local_silent_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "account_alert_settings" ADD CONSTRAINT "account_alert_settings_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_heartbeats" ADD CONSTRAINT "camera_heartbeats_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_silences" ADD CONSTRAINT "camera_silences_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "camera_watch_settings" ADD CONSTRAINT "camera_watch_settings_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "data_caps" ADD CONSTRAINT "data_caps_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "livestream_link_views" ADD CONSTRAINT "livestream_link_views_livestream_id_livestreams_id_fk" FOREIGN KEY ("livestream_id") REFERENCES "public"."livestreams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "livestream_links" ADD CONSTRAINT "livestream_links_livestream_id_livestreams_id_fk" FOREIGN KEY ("livestream_id") REFERENCES "public"."livestreams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "spend_alerts" ADD CONSTRAINT "spend_alerts_customer_id_customers_id_fk" FOREIGN KEY ("customer_id") REFERENCES "public"."customers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timelapses" ADD CONSTRAINT "timelapses_livestream_id_livestreams_id_fk" FOREIGN KEY ("livestream_id") REFERENCES "public"."livestreams"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "timelapses" ADD CONSTRAINT "timelapses_sim_iccid_sims_iccid_fk" FOREIGN KEY ("sim_iccid") REFERENCES "public"."sims"("iccid") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "camera_silences_open_idx" ON "camera_silences" USING btree ("sim_iccid") WHERE ended_at is null;--> statement-breakpoint
CREATE INDEX "camera_silences_sim_idx" ON "camera_silences" USING btree ("sim_iccid","silent_since");--> statement-breakpoint
CREATE INDEX "livestream_links_livestream_idx" ON "livestream_links" USING btree ("livestream_id");--> statement-breakpoint
CREATE UNIQUE INDEX "timelapses_livestream_day_idx" ON "timelapses" USING btree ("livestream_id","day");--> statement-breakpoint
CREATE INDEX "timelapses_sim_day_idx" ON "timelapses" USING btree ("sim_iccid","day");