CREATE TABLE "call_status_tokens" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"organisation_id" integer NOT NULL,
	"customer_hash" text NOT NULL,
	"origin" text NOT NULL,
	"can_answer" boolean DEFAULT false NOT NULL,
	"api_key_id" integer,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "calls" (
	"id" text PRIMARY KEY NOT NULL,
	"organisation_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"customer_hash" text NOT NULL,
	"customer_sealed" text NOT NULL,
	"direction" text NOT NULL,
	"started_via" text NOT NULL,
	"session_id" bigint,
	"started_at" timestamp with time zone NOT NULL,
	"renewed_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"ended_at" timestamp with time zone,
	"end_reason" text,
	"disowned_at" timestamp with time zone,
	"sequence" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "calls_direction_check" CHECK ("calls"."direction" in ('outbound', 'inbound'))
);
--> statement-breakpoint
CREATE TABLE "customer_checks" (
	"id" text PRIMARY KEY NOT NULL,
	"call_id" text NOT NULL,
	"organisation_id" integer NOT NULL,
	"customer_hash" text NOT NULL,
	"requested_by" integer,
	"requested_via" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"answered_at" timestamp with time zone,
	"answered_via" text,
	CONSTRAINT "customer_checks_status_check" CHECK ("customer_checks"."status" in ('pending', 'confirmed', 'denied', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "alert_settings" DROP CONSTRAINT "alert_settings_thresholds";--> statement-breakpoint
ALTER TABLE "alerts" DROP CONSTRAINT "alerts_kind_check";--> statement-breakpoint
ALTER TABLE "alert_settings" ADD COLUMN "denied_checks_per_hour" integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE "call_reports" ADD COLUMN "via" text DEFAULT 'widget' NOT NULL;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "customer_hash" text;--> statement-breakpoint
ALTER TABLE "webhook_deliveries" ADD COLUMN "call_id" text;--> statement-breakpoint
ALTER TABLE "call_status_tokens" ADD CONSTRAINT "call_status_tokens_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "call_status_tokens" ADD CONSTRAINT "call_status_tokens_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "calls" ADD CONSTRAINT "calls_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_checks" ADD CONSTRAINT "customer_checks_call_id_calls_id_fk" FOREIGN KEY ("call_id") REFERENCES "public"."calls"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_checks" ADD CONSTRAINT "customer_checks_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "customer_checks" ADD CONSTRAINT "customer_checks_requested_by_users_id_fk" FOREIGN KEY ("requested_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "call_status_tokens_hash_key" ON "call_status_tokens" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "call_status_tokens_customer_idx" ON "call_status_tokens" USING btree ("organisation_id","customer_hash","created_at");--> statement-breakpoint
CREATE INDEX "call_status_tokens_expires_idx" ON "call_status_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "calls_one_active_per_user_key" ON "calls" USING btree ("user_id") WHERE "calls"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "calls_customer_idx" ON "calls" USING btree ("organisation_id","customer_hash","started_at");--> statement-breakpoint
CREATE INDEX "calls_due_idx" ON "calls" USING btree ("ends_at") WHERE "calls"."ended_at" is null;--> statement-breakpoint
CREATE INDEX "calls_started_idx" ON "calls" USING btree ("started_at");--> statement-breakpoint
CREATE INDEX "calls_session_idx" ON "calls" USING btree ("session_id") WHERE "calls"."ended_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "customer_checks_one_pending_key" ON "customer_checks" USING btree ("organisation_id","customer_hash") WHERE "customer_checks"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "customer_checks_call_idx" ON "customer_checks" USING btree ("call_id","created_at");--> statement-breakpoint
CREATE INDEX "customer_checks_customer_idx" ON "customer_checks" USING btree ("organisation_id","customer_hash","created_at");--> statement-breakpoint
CREATE INDEX "webhook_deliveries_customer_idx" ON "webhook_deliveries" USING btree ("organisation_id","customer_hash") WHERE "webhook_deliveries"."customer_hash" is not null;--> statement-breakpoint
CREATE INDEX "webhook_deliveries_call_idx" ON "webhook_deliveries" USING btree ("call_id") WHERE "webhook_deliveries"."call_id" is not null;--> statement-breakpoint
ALTER TABLE "alert_settings" ADD CONSTRAINT "alert_settings_thresholds" CHECK ("alert_settings"."failed_lookups_per_10_minutes" between 1 and 10000 and "alert_settings"."reports_per_hour" between 1 and 10000 and "alert_settings"."denied_checks_per_hour" between 1 and 10000);--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_kind_check" CHECK ("alerts"."kind" in ('failed-lookups', 'reports', 'disowned-calls', 'denied-checks'));