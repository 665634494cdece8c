import { UI_TIMING } from "@shared/constants";
import { useEffect, useRef, useState } from "react";

export type CopyState = "idle" | "copied" | "failed";

/** Copies with the Clipboard API, else through a selected text area (older browsers, non-secure origins). */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    area.setAttribute("readonly", "");
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    try {
      return document.execCommand("copy");
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}

/** A Copy button's logic: `copy()` copies the text, and `state` says "copied" (or "failed") for two seconds. */
export function useCopy(text: string): { state: CopyState; copy(): Promise<void> } {
  const [state, setState] = useState<CopyState>("idle");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  async function copy() {
    const ok = await copyText(text);
    setState(ok ? "copied" : "failed");
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setState("idle"), UI_TIMING.copiedMs);
  }

  return { state, copy };
}
