import { CallPanel } from "../features/calls/call-panel";
import { useCallPanel } from "../features/calls/use-call";
import { DashboardPage } from "../features/codes/pages/dashboard-page";

/**
 * /dashboard: the specified Generate Identity Code screen (codes) with the call panel (calls) below it; a
 * code generated while a call is active, or with a customer reference typed, belongs to that call.
 */
export function DashboardRoute() {
  const calls = useCallPanel();
  return <DashboardPage callForCode={calls.callForCode} below={<CallPanel panel={calls} />} />;
}
