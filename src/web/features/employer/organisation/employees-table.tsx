import type { EmployeeRecord } from "@shared/employer";
import { MESSAGES } from "@shared/messages";
import { ConfirmButton } from "@web/components/ui/confirm-button";
import { countCaption, DataTable } from "@web/components/ui/data-table";
import { Pager } from "@web/components/ui/pager";
import { SearchField } from "@web/components/ui/search-field";
import { EMPTY_PAGE, type PagedList } from "@web/lib/paged-list";
import { organisationApi } from "./api";

type EmployeesTableProps = {
  employees: PagedList<EmployeeRecord, string>;
  /** whether this user may deactivate (an employer, not a visiting admin) */
  canDeactivate: boolean;
  onDeactivated(): void | Promise<void>;
};

/** The organisation's active users, searchable by e-mail, ten a page; Deactivate needs a second press. */
export function EmployeesTable({ employees, canDeactivate, onDeactivated }: EmployeesTableProps) {
  const page = employees.list ?? EMPTY_PAGE;
  const query = employees.query.filters;
  const loading = employees.loading;

  async function deactivate(employee: EmployeeRecord) {
    try {
      await organisationApi.deactivateEmployee(employee.id);
    } catch (error) {
      console.error("Could not deactivate the employee", error);
      alert(MESSAGES.deactivateEmployeeFailed);
      return;
    }
    await onDeactivated();
  }

  return (
    <>
      <SearchField label="Search by email" onSearch={employees.search} />
      <DataTable
        caption={countCaption("Active users", page.total, query)}
        busy={loading}
        head={
          <>
            <th scope="col">Full name</th>
            <th scope="col">Email</th>
            <th scope="col" className="data-table__num">
              Codes generated
            </th>
            <th scope="col" className="data-table__num">
              Codes verified
            </th>
            {canDeactivate && <th scope="col">Actions</th>}
          </>
        }
        columns={canDeactivate ? 5 : 4}
        items={page.items}
        empty={loading ? "Loading…" : query ? `No active users match "${query}".` : "No active users yet."}
        row={(employee) => (
          <tr key={employee.id}>
            <th scope="row">{employee.fullName}</th>
            <td>{employee.email}</td>
            <td className="data-table__num">{employee.codesGenerated}</td>
            <td className="data-table__num">{employee.codesVerified}</td>
            {canDeactivate && (
              <td>
                <ConfirmButton label="Deactivate" subject={employee.fullName} onConfirm={() => deactivate(employee)} />
              </td>
            )}
          </tr>
        )}
      />
      <Pager label="Active users" page={page.page} pages={page.pages} onPage={employees.showPage} busy={loading} />
    </>
  );
}
