/** What other features use of the audit log: data protection's reads and its sanctioned changes. */

export { checkpointAudit, verifyAudit } from "./chain";
export { auditDetail, auditDetailSql, auditDetailTextSql, lookUpOriginHostSql, reportSiteSql } from "./events";
export { auditFeed } from "./feed";
export {
  aboutPersonSql,
  cutAddressSql,
  cutAuditAddresses,
  eraseFromAudit,
  recordErasure,
  wholeAddressSql,
} from "./maintenance";
export { eventsAbout } from "./repository";
