-- Data protection: the product's own changes to the audit log (erasure, cutting stored addresses,
-- retention) are allowed in a transaction that says so; anything else is still refused.
CREATE OR REPLACE FUNCTION audit_log_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'TRUNCATE' AND coalesce(current_setting('callproof.audit_maintenance', true), '') = 'on' THEN
    IF TG_OP = 'DELETE' THEN
      RETURN OLD;
    END IF;
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'audit_log is append-only';
END;
$$;
