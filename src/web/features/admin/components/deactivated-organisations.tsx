import { ADMIN_MESSAGES, type DeactivatedOrganisation } from "@shared/admin";
import { countCaption, DataTable } from "@web/components/ui/data-table";
import { useApi } from "@web/lib/use-api";
import { useState } from "react";
import { adminApi } from "../api";
import { RowActionButton, useRowAction } from "./row-action";

type DeactivatedOrganisationsProps = {
  /** bumped after a change elsewhere on the dashboard (a deactivation), so the list loads again */
  refreshKey: number;
  /** an organisation was reactivated: its employers are pending again (reload, and bump refreshKey) */
  onReactivated(): void;
};

/**
 * Organisations an admin deactivated, each with a Reactivate button. Reactivating restores the
 * organisation only: its accounts stay deactivated and its employers wait in the pending list.
 */
export function DeactivatedOrganisations({ refreshKey, onReactivated }: DeactivatedOrganisationsProps) {
  const { data: items, error } = useApi(() => adminApi.deactivatedOrganisations(), [refreshKey], {
    what: "deactivated organisations",
  });
  const failed = error !== null;
  const [result, setResult] = useState<string | null>(null);
  const action = useRowAction(ADMIN_MESSAGES.reactivateFailedPrefix);

  function reactivate(organisation: DeactivatedOrganisation) {
    return action.run(organisation.id, async () => {
      const answer = await adminApi.reactivateOrganisation(organisation.id);
      setResult(answer?.message ?? null);
      // the dashboard reloads (this list with it: refreshKey)
      onReactivated();
    });
  }

  const list = items ?? [];
  return (
    <section className="admin-section" aria-labelledby="deactivated-organisations-title">
      <h2 id="deactivated-organisations-title">Deactivated organisations</h2>
      <p>Reactivating restores the organisation only; its employers then wait in the pending list for activation.</p>
      <div role="status">{result && <p className="notice notice--success">{result}</p>}</div>
      <DataTable
        caption={countCaption("Deactivated organisations", list.length)}
        busy={items === undefined && !failed}
        head={
          <>
            <th scope="col">Company</th>
            <th scope="col">Domain</th>
            <th scope="col">Deactivated</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </>
        }
        columns={4}
        items={list}
        empty={
          failed
            ? "Could not load the deactivated organisations."
            : items === undefined
              ? "Loading…"
              : "None deactivated."
        }
        row={(organisation) => (
          <tr key={organisation.id}>
            <th scope="row">{organisation.companyName}</th>
            <td>{organisation.domain}</td>
            <td>
              {organisation.deactivatedAt ? (
                <time dateTime={organisation.deactivatedAt}>
                  {new Date(organisation.deactivatedAt).toLocaleString()}
                </time>
              ) : (
                "—"
              )}
            </td>
            <td>
              <RowActionButton
                label="Reactivate"
                subject={organisation.companyName}
                variant="secondary"
                busy={action.busyId === organisation.id}
                onClick={() => void reactivate(organisation)}
              />
            </td>
          </tr>
        )}
      />
    </section>
  );
}
