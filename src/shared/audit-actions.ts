/**
 * Every action the audit log records, in one typed registry: services record them, the raw SQL of the
 * hot paths takes them as parameters, and the audit filter offers them.
 */
export const AUDIT_ACTIONS = {
  login: "auth.login",
  verify2fa: "auth.verify-2fa",
  logout: "auth.logout",
  forgotPassword: "auth.forgot-password",
  resetPassword: "auth.reset-password",
  verifyEmail: "auth.verify-email",
  resendVerification: "auth.resend-verification",
  validateEmployerCode: "onboarding.validate-employer-code",
  registerEmployer: "onboarding.register-employer",
  validateAccessCode: "onboarding.validate-access-code",
  registerEmployee: "onboarding.register-employee",
  inviteEmployer: "admin.invite-employer",
  activateAccount: "admin.activate-account",
  deactivateEmployer: "admin.deactivate-employer",
  deactivateByDomain: "admin.deactivate-by-domain",
  generateAccessCode: "employer.generate-access-code",
  deactivateEmployee: "employer.deactivate-employee",
  generateCode: "code.generate",
  verifyCode: "code.verify",
  changePassword: "account.change-password",
  revokeOtherSessions: "account.revoke-other-sessions",
  addPasskey: "passkey.add",
  renamePasskey: "passkey.rename",
  removePasskey: "passkey.remove",
  passkeySignIn: "passkey.sign-in",
  addSite: "site.add",
  removeSite: "site.remove",
  checkSite: "site.check",
  siteProofLost: "site.proof-lost",
  adminVerifySite: "admin.verify-site",
  reportCall: "call.report",
  setWebhook: "webhook.set",
  removeWebhook: "webhook.remove",
  testWebhook: "webhook.test",
  changeAlertSettings: "alerts.settings",
  raiseAlert: "alerts.raise",
  eraseAccount: "admin.erase-account",
  exportAccount: "account.export",
  createScimToken: "scim.token-create",
  revokeScimToken: "scim.token-revoke",
  scimAuth: "scim.auth",
  scimCreateUser: "scim.create-user",
  scimUpdateUser: "scim.update-user",
  scimDeactivateUser: "scim.deactivate-user",
  scimReactivateUser: "scim.reactivate-user",
  scimDeleteUser: "scim.delete-user",
} as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[keyof typeof AUDIT_ACTIONS];

/** Every action name, for filters. */
export const AUDIT_ACTION_NAMES: readonly AuditAction[] = Object.values(AUDIT_ACTIONS);
