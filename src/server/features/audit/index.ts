/** What other features use of the audit log: data protection's reads and its sanctioned changes. */
export {
  aboutPersonSql,
  cutAddressSql,
  cutAuditAddresses,
  deleteAuditBefore,
  eraseFromAudit,
  wholeAddressSql,
} from "./maintenance";
export { eventsAbout } from "./repository";
