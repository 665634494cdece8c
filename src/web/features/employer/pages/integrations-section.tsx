import { API_KEY_TEXT } from "@shared/api-keys";
import { SCIM_TEXT } from "@shared/scim";
import { SSO_TEXT } from "@shared/sso-texts";
import { WEBHOOK_TEXT } from "@shared/webhooks";
import { ApiKeysPanel } from "../api-keys/api-keys-panel";
import { ScimPanel } from "../scim/scim-panel";
import { SsoPanel } from "../sso/sso-panel";
import { WebhookPanel } from "../webhooks/webhook-panel";

/** Integrations: the webhook, API keys, single sign-on and provisioning (SCIM). */
export function IntegrationsSection() {
  return (
    <>
      <section className="employer-section" aria-labelledby="webhook-title">
        <h2 id="webhook-title">{WEBHOOK_TEXT.title}</h2>
        <WebhookPanel />
      </section>

      <section className="employer-section" aria-labelledby="api-keys-title">
        <h2 id="api-keys-title">{API_KEY_TEXT.title}</h2>
        <ApiKeysPanel />
      </section>

      <section className="employer-section" aria-labelledby="sso-title">
        <h2 id="sso-title">{SSO_TEXT.title}</h2>
        <SsoPanel />
      </section>

      <section className="employer-section" aria-labelledby="scim-title">
        <h2 id="scim-title">{SCIM_TEXT.title}</h2>
        <ScimPanel />
      </section>
    </>
  );
}
