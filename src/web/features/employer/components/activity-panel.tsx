import { ACTIVITY_TEXT, type ActivityDay } from "@shared/activity";
import { Notice } from "@web/components/ui/notice";
import { errorMessage } from "@web/lib/api";
import { lazy, Suspense, useEffect, useState } from "react";
import { employerApi } from "../api";

/** The chart's code loads with the dashboard's data, not with the first page of the app. */
const ActivityChart = lazy(() => import("./activity-chart"));

/** The organisation's activity over 30 days; read again when `refreshKey` changes. */
export function ActivityPanel({ refreshKey }: { refreshKey: number }) {
  const [days, setDays] = useState<ActivityDay[] | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    void refreshKey;
    employerApi
      .activity()
      .then((answer) => {
        if (!live) return;
        setDays(answer);
        setFailure(null);
      })
      .catch((error) => {
        if (!live) return;
        console.error("Could not load the activity", error);
        setFailure(errorMessage(error, ACTIVITY_TEXT.loadFailed));
      });
    return () => {
      live = false;
    };
  }, [refreshKey]);

  if (failure) return <Notice tone="error">{failure}</Notice>;
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
