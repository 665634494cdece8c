-- SCIM: the userName as the identity provider wrote it (its letter case kept; the account's e-mail stays
-- lower-case), and which name attributes the provider has written, so that an attribute it cleared reads
-- back cleared while one it never sent is derived from the account's full name.
ALTER TABLE "scim_users" ADD COLUMN "user_name" text;--> statement-breakpoint
ALTER TABLE "scim_users" ADD COLUMN "provisioned" text[] DEFAULT '{}' NOT NULL;
