-- Closing the loop: where a code was verified, reported calls, and webhooks with a delivery outbox.
ALTER TABLE "identity_codes" ADD COLUMN "verified_host" text;--> statement-breakpoint
CREATE TABLE "call_reports" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"organisation_id" integer REFERENCES "organisations"("id"),
	"site" text,
	"caller_number" text,
	"claimed_name" text,
	"note" text,
	"mailed_at" timestamp with time zone,
	CONSTRAINT "call_reports_lengths" CHECK (coalesce(length("caller_number"), 0) <= 500 AND coalesce(length("claimed_name"), 0) <= 500 AND coalesce(length("note"), 0) <= 500 AND coalesce(length("site"), 0) <= 253),
	CONSTRAINT "call_reports_not_empty" CHECK (coalesce("caller_number", "claimed_name", "note") IS NOT NULL)
);--> statement-breakpoint
CREATE INDEX "call_reports_org_at_idx" ON "call_reports" USING btree ("organisation_id", "at", "id");--> statement-breakpoint
CREATE INDEX "call_reports_unmailed_idx" ON "call_reports" USING btree ("organisation_id") WHERE "mailed_at" IS NULL AND "organisation_id" IS NOT NULL;--> statement-breakpoint
ALTER TABLE "organisations" ADD COLUMN "reports_mailed_at" timestamp with time zone;--> statement-breakpoint
CREATE TABLE "webhook_endpoints" (
	"organisation_id" integer PRIMARY KEY NOT NULL REFERENCES "organisations"("id"),
	"url" text NOT NULL,
	"events" text[] NOT NULL,
	"secret_sealed" text NOT NULL,
	"secret_hint" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "webhook_endpoints_url_length" CHECK (length("url") <= 2000)
);--> statement-breakpoint
CREATE TABLE "webhook_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"message_id" text NOT NULL,
	"organisation_id" integer NOT NULL REFERENCES "organisations"("id"),
	"event_type" text NOT NULL,
	"payload" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"next_attempt_at" timestamp with time zone NOT NULL,
	"locked_until" timestamp with time zone,
	"last_attempt_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone,
	CONSTRAINT "webhook_deliveries_status_check" CHECK ("status" in ('pending', 'delivered', 'failed'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_message_key" ON "webhook_deliveries" USING btree ("message_id");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_due_idx" ON "webhook_deliveries" USING btree ("next_attempt_at") WHERE "status" = 'pending';--> statement-breakpoint
CREATE INDEX "webhook_deliveries_org_idx" ON "webhook_deliveries" USING btree ("organisation_id", "id");
