CREATE TABLE "scim_tokens" (
	"organisation_id" integer PRIMARY KEY NOT NULL,
	"token_id" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_by" integer,
	"created_at" timestamp with time zone NOT NULL,
	"last_used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "scim_users" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"organisation_id" integer NOT NULL,
	"external_id" text,
	"given_name" text,
	"family_name" text,
	"formatted_name" text,
	"display_name" text,
	"deactivated_by_scim" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"deleted_at" timestamp with time zone,
	"released_user_name" text,
	"erased_at" timestamp with time zone,
	CONSTRAINT "scim_users_external_id_length" CHECK (length("scim_users"."external_id") <= 255)
);
--> statement-breakpoint
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_tokens" ADD CONSTRAINT "scim_tokens_created_by_users_id_fk" FOREIGN KEY ("created_by") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "scim_users" ADD CONSTRAINT "scim_users_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "scim_tokens_token_id_key" ON "scim_tokens" USING btree ("token_id");--> statement-breakpoint
CREATE INDEX "scim_users_org_external_idx" ON "scim_users" USING btree ("organisation_id","external_id");