-- Alerts for the fraud team: settings per organisation, the alerts raised, and one claim per kind an hour.
CREATE TABLE "alert_settings" (
	"organisation_id" integer PRIMARY KEY NOT NULL REFERENCES "organisations"("id"),
	"enabled" boolean DEFAULT true NOT NULL,
	"failed_lookups_per_10_minutes" integer DEFAULT 20 NOT NULL,
	"reports_per_hour" integer DEFAULT 3 NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_settings_thresholds" CHECK ("failed_lookups_per_10_minutes" BETWEEN 1 AND 10000 AND "reports_per_hour" BETWEEN 1 AND 10000)
);--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"organisation_id" integer NOT NULL REFERENCES "organisations"("id"),
	"kind" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"count" integer NOT NULL,
	"window_start" timestamp with time zone NOT NULL,
	"window_end" timestamp with time zone NOT NULL,
	"sites" text[] NOT NULL,
	CONSTRAINT "alerts_kind_check" CHECK ("kind" IN ('failed-lookups', 'reports'))
);--> statement-breakpoint
CREATE INDEX "alerts_org_at_idx" ON "alerts" USING btree ("organisation_id", "at");--> statement-breakpoint
CREATE TABLE "alert_slots" (
	"organisation_id" integer NOT NULL REFERENCES "organisations"("id"),
	"kind" text NOT NULL,
	"last_raised_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_slots_organisation_id_kind_pk" PRIMARY KEY ("organisation_id", "kind")
);
