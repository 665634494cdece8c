import { SITE_PROOF, type SiteMethod, siteHostBody } from "@shared/sites";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { CopyableValue } from "@web/components/ui/copyable-value";
import { FormError } from "@web/components/ui/form-error";
import { Notice } from "@web/components/ui/notice";
import { SubmitButton } from "@web/components/ui/submit-button";
import { TextField } from "@web/components/ui/text-field";
import { errorMessage } from "@web/lib/api";
import { useSubmit } from "@web/lib/use-submit";
import { type FormEvent, useState } from "react";
import { type SiteRecord, sitesApi, useSites } from "./api";

const METHOD_TEXT: Record<SiteMethod, string> = {
  "email-domain": "by your email domain",
  dns: "by DNS record",
  "well-known": "by file on the site",
  admin: "by CallProof",
};

/**
 * The organisation's sites: where its employees' codes verify. Each pending site shows its two
 * proofs (a DNS record or a file) with copyable values and a "Check now" button.
 */
export function SitesPanel() {
  const { data: sites, error, reload } = useSites();
  const failure = error ? errorMessage(error, "The sites could not be loaded. Please reload the page.") : null;
  const changed = async () => void (await reload());

  return (
    <div className="sites">
      <p className="muted">
        Your employees' codes verify only in the CallProof widget on these sites and their subdomains. Your email domain
        counts once your email address is verified; prove any other site with a DNS record or a file.
      </p>
      <AddSiteForm onAdded={changed} />
      {failure && <Notice tone="error">{failure}</Notice>}
      {sites === undefined && !failure && (
        <p className="page-status" role="status">
          Loading sites…
        </p>
      )}
      {sites && (
        <ul className="sites__list" aria-label="Your sites">
          {sites.map((site, i) => (
            <li key={site.host} className="card site">
              <SiteItem site={site} removable={i > 0} onChanged={changed} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function AddSiteForm({ onAdded }: { onAdded(): Promise<void> }) {
  const [host, setHost] = useState("");
  const form = useSubmit();
  const { describedBy } = form;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = form.check(siteHostBody, { host }, "Enter a host name.");
    if (!body) return;
    await form.run(
      async () => {
        await sitesApi.add(body.host);
        setHost("");
        await onAdded();
      },
      { failed: "The site could not be added. Please try again." },
    );
  }

  return (
    <form className="sites__add" onSubmit={submit} noValidate>
      <div className="sites__add-row">
        <TextField
          label="Add a site"
          name="host"
          autoComplete="off"
          spellCheck={false}
          placeholder="www.example.com"
          hint="A host name where your widget runs, for example www.example.com."
          value={host}
          onChange={(e) => setHost(e.target.value)}
          describedBy={describedBy}
          className="sites__field"
        />
        <SubmitButton busy={form.busy} className="button button--primary">
          Add site
        </SubmitButton>
      </div>
      <FormError form={form} />
    </form>
  );
}

function SiteItem({
  site,
  removable,
  onChanged,
}: {
  site: SiteRecord;
  removable: boolean;
  onChanged(): Promise<void>;
}) {
  const [checking, setChecking] = useState(false);
  const [result, setResult] = useState<{ tone: "success" | "error"; text: string } | null>(null);
  const verified = site.status === "verified";

  async function check() {
    setChecking(true);
    setResult(null);
    try {
      const answer = await sitesApi.check(site.host);
      setResult(
        answer.status === "verified"
          ? { tone: "success", text: `${site.host} is verified.` }
          : {
              tone: "error",
              text: "No proof found yet. DNS changes can take a while to appear; try again in a few minutes.",
            },
      );
      await onChanged();
    } catch (error) {
      setResult({ tone: "error", text: errorMessage(error, "The check failed. Please try again.") });
    } finally {
      setChecking(false);
    }
  }

  return (
    <>
      <div className="site__head">
        <h3 className="site__host">{site.host}</h3>
        <span className={`site__status site__status--${site.status}`}>
          {verified ? `Verified ${site.method ? METHOD_TEXT[site.method] : ""}` : "Pending: not proved yet"}
        </span>
      </div>
      {!verified && (
        <div className="site__proofs">
          <p>Prove that {site.host} is yours in one of two ways, then press Check now:</p>
          <h4>1. A DNS record</h4>
          <p>Add a TXT record:</p>
          <CopyableValue label="Name" value={SITE_PROOF.dnsName(site.host)} />
          <CopyableValue label="Value" value={SITE_PROOF.dnsValue(site.token)} />
          <h4>2. Or a file on the site</h4>
          <p>
            Publish <code className="site__url">{SITE_PROOF.fileUrl(site.host)}</code> containing:
          </p>
          <CopyableValue label="Token" value={site.token} />
        </div>
      )}
      <div className="site__actions">
        {(site.method === null || site.method === "dns" || site.method === "well-known") && (
          <button type="button" className="button button--secondary" onClick={check} disabled={checking}>
            {checking ? "Checking…" : "Check now"}
            <span className="visually-hidden"> {site.host}</span>
          </button>
        )}
        {removable && (
          <ConfirmButton
            label="Remove"
            subject={site.host}
            onConfirm={async () => {
              try {
                await sitesApi.remove(site.host);
                await onChanged();
              } catch (error) {
                setResult({ tone: "error", text: errorMessage(error, "The site could not be removed.") });
              }
            }}
          />
        )}
      </div>
      {result && <Notice tone={result.tone}>{result.text}</Notice>}
    </>
  );
}
