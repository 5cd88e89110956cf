CREATE TABLE "heartbeat_stream" (
	"id" integer PRIMARY KEY NOT NULL,
	"last_beat_at" timestamp with time zone NOT NULL,
	"resumed_at" timestamp with time zone NOT NULL
);
