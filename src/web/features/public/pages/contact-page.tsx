import { SUPPORT_REPLY_DAYS } from "@shared/constants";
import { Page } from "@web/components/ui/page";
import { usePublicConfig } from "@web/lib/public-config";

/** Support contact: the support e-mail address and the reply promise. */
export function ContactPage() {
  const config = usePublicConfig();
  return (
    <Page title="Contact Us" width="narrow">
      <div className="card">
        <p>Questions about CallProof, your account or the widget? Email our support team.</p>
        {config ? (
          <p className="contact-email">
            <a href={`mailto:${config.supportEmail}`}>{config.supportEmail}</a>
          </p>
        ) : config === undefined ? (
          <p className="muted" role="status">
            Loading contact details…
          </p>
        ) : null}
        <p>We reply within {SUPPORT_REPLY_DAYS} working days.</p>
      </div>
    </Page>
  );
}
