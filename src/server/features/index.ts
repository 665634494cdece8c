import { accountFeature } from "./account";
import { activityFeature } from "./activity";
import { adminFeature } from "./admin";
import { alertsFeature } from "./alerts";
import { apiKeysFeature } from "./api-keys";
import { auditFeature } from "./audit";
import { authFeature } from "./auth";
import { callsFeature } from "./calls";
import { codesFeature } from "./codes";
import { employerFeature } from "./employer";
import type { Feature } from "./feature";
import { onboardingFeature } from "./onboarding";
import { organisationsFeature } from "./organisations";
import { reportsFeature } from "./reports";
import { scimFeature } from "./scim";
import { sitesFeature } from "./sites";
import { ssoFeature } from "./sso";
import { usersFeature } from "./users";
import { v1Feature } from "./v1";
import { webhooksFeature } from "./webhooks";

export type { Feature, Job } from "./feature";

/**
 * Every feature of the server, once, each described by its own `index.ts` (docs/decisions/009): `app.ts`
 * registers their plugins, routes (each tagged with its feature in the OpenAPI document) and jobs from this
 * list and gives it to the services as `deps.features`, which housekeeping (sweeps), deactivation, erasure
 * and the data export walk. The order is the order of registration (the session plugin first) and of the
 * erasure's steps (the audit log's always last). The README's "Where things live" lists the same (a test
 * checks it).
 */
export const FEATURES: Feature[] = [
  usersFeature,
  organisationsFeature,
  authFeature,
  accountFeature,
  onboardingFeature,
  codesFeature,
  adminFeature,
  employerFeature,
  auditFeature,
  sitesFeature,
  reportsFeature,
  activityFeature,
  alertsFeature,
  webhooksFeature,
  apiKeysFeature,
  v1Feature,
  ssoFeature,
  scimFeature,
  callsFeature,
];
