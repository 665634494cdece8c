import type { ReactNode } from "react";

type NoticeProps = {
  tone: "error" | "success" | "info";
  id?: string;
  children: ReactNode;
};

/** A message about a form or page: errors are alerts (red text), the rest polite status updates. */
export function Notice({ tone, id, children }: NoticeProps) {
  return (
    <p id={id} className={`notice notice--${tone}`} role={tone === "error" ? "alert" : "status"}>
      {children}
    </p>
  );
}
