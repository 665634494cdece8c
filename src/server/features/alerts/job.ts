import { ALERT_LIMITS } from "@shared/alerts";
import fp from "fastify-plugin";
import { raiseDueAlerts } from "./service";

/** The alerts job of this process: every 20 s, so an alert is raised within a minute of its event. */
export default fp(
  async (app) => {
    app.deps.background.every("alerts", ALERT_LIMITS.checkEveryMs, () => raiseDueAlerts(app.deps).then(() => false));
  },
  { name: "alerts-job", dependencies: ["deps"] },
);
