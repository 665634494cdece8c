import { ACTIVITY_TEXT } from "@shared/activity";
import { Notice } from "@web/components/ui/notice";
import { errorMessage } from "@web/lib/api";
import { lazy, Suspense } from "react";
import { useActivity } from "./api";

/** The chart's code loads with the dashboard's data, not with the first page of the app. */
const ActivityChart = lazy(() => import("./activity-chart"));

/** The organisation's activity over 30 days; read again when `refreshKey` changes. */
export function ActivityPanel({ refreshKey }: { refreshKey: number }) {
  const { data: days, error } = useActivity(refreshKey);

  if (error) return <Notice tone="error">{errorMessage(error, ACTIVITY_TEXT.loadFailed)}</Notice>;
  const loading = (
    <p className="muted" role="status">
      Loading…
    </p>
  );
  if (!days) return loading;
  return (
    <Suspense fallback={loading}>
      <ActivityChart days={days} />
    </Suspense>
  );
}
