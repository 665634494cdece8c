-- API keys for /api/v1 (hashed at rest), and feed positions for the reports cursor: a position is given
-- to a report only once the transaction that wrote it has ended (like audit_log.position, migration 0017).
CREATE SEQUENCE "public"."report_feed_position" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "api_keys" (
	"id" serial PRIMARY KEY NOT NULL,
	"organisation_id" integer NOT NULL,
	"name" text NOT NULL,
	"scopes" text[] NOT NULL,
	"prefix" text NOT NULL,
	"key_hash" text NOT NULL,
	"created_by" integer NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"use_audited" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "api_keys_name_length" CHECK (length("api_keys"."name") between 1 and 100)
);
--> statement-breakpoint
ALTER TABLE "call_reports" ADD COLUMN "position" bigint;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "api_keys_prefix_key" ON "api_keys" USING btree ("prefix");--> statement-breakpoint
CREATE INDEX "api_keys_org_idx" ON "api_keys" USING btree ("organisation_id");--> statement-breakpoint
CREATE INDEX "api_keys_creator_idx" ON "api_keys" USING btree ("created_by");--> statement-breakpoint
CREATE INDEX "audit_log_org_position_idx" ON "audit_log" USING btree ("organisation_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "call_reports_position_key" ON "call_reports" USING btree ("position");--> statement-breakpoint
CREATE INDEX "call_reports_unpositioned_idx" ON "call_reports" USING btree ("id") WHERE "call_reports"."position" is null;--> statement-breakpoint
CREATE INDEX "call_reports_org_position_idx" ON "call_reports" USING btree ("organisation_id","position");