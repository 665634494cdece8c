import { useId } from "react";
import type { Page } from "../../../../shared/admin";
import type { EmployeeRecord } from "../../../../shared/employer";
import { MESSAGES } from "../../../../shared/messages";
import { ConfirmButton } from "../../../components/ui/confirm-button";
import { Pager } from "../../../components/ui/pager";
import { SearchField } from "../../../components/ui/search-field";
import { TableScroll } from "../../../components/ui/table-scroll";
import { employerApi } from "../api";

type EmployeesTableProps = {
  page: Page<EmployeeRecord>;
  query: string;
  loading: boolean;
  /** whether this user may deactivate (an employer, not a visiting admin) */
  canDeactivate: boolean;
  onSearch(q: string): void;
  onPage(page: number): void;
  onDeactivated(): void | Promise<void>;
};

/** The organisation's active users, searchable by e-mail, ten a page; Deactivate needs a second press. */
export function EmployeesTable({
  page,
  query,
  loading,
  canDeactivate,
  onSearch,
  onPage,
  onDeactivated,
}: EmployeesTableProps) {
  const captionId = useId();
  const columns = canDeactivate ? 5 : 4;

  async function deactivate(employee: EmployeeRecord) {
    try {
      await employerApi.deactivateEmployee(employee.id);
    } catch (error) {
      console.error("Could not deactivate the employee", error);
      alert(MESSAGES.deactivateEmployeeFailed);
      return;
    }
    await onDeactivated();
  }

  return (
    <>
      <SearchField label="Search by email" onSearch={onSearch} />
      <TableScroll labelledBy={captionId}>
        <table className="data-table" aria-busy={loading || undefined}>
          <caption id={captionId}>
            Active users{page.total > 0 ? ` (${page.total}${query ? ` matching "${query}"` : ""})` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Full name</th>
              <th scope="col">Email</th>
              <th scope="col" className="data-table__num">
                Codes generated
              </th>
              <th scope="col" className="data-table__num">
                Codes verified
              </th>
              {canDeactivate && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {page.items.length === 0 ? (
              <tr>
                <td colSpan={columns} className="data-table__empty">
                  {loading ? "Loading…" : query ? `No active users match "${query}".` : "No active users yet."}
                </td>
              </tr>
            ) : (
              page.items.map((employee) => (
                <tr key={employee.id}>
                  <th scope="row">{employee.fullName}</th>
                  <td>{employee.email}</td>
                  <td className="data-table__num">{employee.codesGenerated}</td>
                  <td className="data-table__num">{employee.codesVerified}</td>
                  {canDeactivate && (
                    <td>
                      <ConfirmButton
                        label="Deactivate"
                        subject={employee.fullName}
                        onConfirm={() => deactivate(employee)}
                      />
                    </td>
                  )}
                </tr>
              ))
            )}
          </tbody>
        </table>
      </TableScroll>
      <Pager label="Active users" page={page.page} pages={page.pages} onPage={onPage} busy={loading} />
    </>
  );
}
