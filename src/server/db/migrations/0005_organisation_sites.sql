CREATE TABLE "organisation_sites" (
	"id" serial PRIMARY KEY NOT NULL,
	"organisation_id" integer NOT NULL,
	"host" text NOT NULL,
	"status" text NOT NULL,
	"method" text,
	"token" text NOT NULL,
	"verified_at" timestamp with time zone,
	"checked_at" timestamp with time zone,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "organisation_sites_host_check" CHECK ("organisation_sites"."host" ~ '^[a-z0-9.-]{1,253}$'),
	CONSTRAINT "organisation_sites_status_check" CHECK ("organisation_sites"."status" in ('pending', 'verified')),
	CONSTRAINT "organisation_sites_method_check" CHECK ("organisation_sites"."method" in ('email-domain', 'dns', 'well-known', 'admin')),
	CONSTRAINT "organisation_sites_verified_has_method" CHECK (("organisation_sites"."status" = 'verified') = ("organisation_sites"."method" is not null))
);
--> statement-breakpoint
ALTER TABLE "organisation_sites" ADD CONSTRAINT "organisation_sites_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "organisation_sites_org_host_key" ON "organisation_sites" USING btree ("organisation_id","host");--> statement-breakpoint
CREATE INDEX "organisation_sites_host_idx" ON "organisation_sites" USING btree ("host") WHERE "organisation_sites"."status" = 'verified';--> statement-breakpoint
CREATE INDEX "organisation_sites_recheck_idx" ON "organisation_sites" USING btree ("checked_at") WHERE "organisation_sites"."method" in ('dns', 'well-known');--> statement-breakpoint
-- Existing organisations: the e-mail domain is verified once an account at it has verified its e-mail;
-- a website at or under that domain shares its status; any other website waits for a proof.
WITH org AS (
	SELECT o.id, o.domain, o.website_host, o.created_at,
		EXISTS (
			SELECT 1 FROM "users" u
			WHERE u.organisation_id = o.id AND u.email_verified_at IS NOT NULL
				AND regexp_replace(u.email, '^.*@', '') = o.domain
		) AS domain_proved
	FROM "organisations" o
),
hosts AS (
	SELECT id, domain AS host, domain_proved AS proved, created_at FROM org
	UNION ALL
	SELECT id, website_host, domain_proved AND right(website_host, length(domain) + 1) = '.' || domain, created_at
	FROM org
	WHERE website_host <> domain
)
INSERT INTO "organisation_sites" ("organisation_id", "host", "status", "method", "token", "verified_at", "created_at")
SELECT id, host,
	CASE WHEN proved THEN 'verified' ELSE 'pending' END,
	CASE WHEN proved THEN 'email-domain' END,
	replace(gen_random_uuid()::text, '-', ''),
	CASE WHEN proved THEN created_at END,
	created_at
FROM hosts
WHERE host ~ '^[a-z0-9.-]{1,253}$'
ON CONFLICT DO NOTHING;
--> statement-breakpoint
-- Refused hits since the key's last allowed one: floods are counted here instead of one audit row each.
ALTER TABLE "rate_limits" ADD COLUMN "refused" integer DEFAULT 0 NOT NULL;
