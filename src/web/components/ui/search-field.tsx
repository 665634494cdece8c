import { useEffect, useId, useRef, useState } from "react";
import "./ui.css";

type SearchFieldProps = {
  label: string;
  hint?: string;
  /** called with the trimmed text once typing pauses */
  onSearch(query: string): void;
  delayMs?: number;
  placeholder?: string;
};

/** A labelled search box that reports what was typed after a short pause (debounced). */
export function SearchField({ label, hint, onSearch, delayMs = 300, placeholder }: SearchFieldProps) {
  const id = useId();
  const [value, setValue] = useState("");
  const reported = useRef("");
  const onSearchRef = useRef(onSearch);
  onSearchRef.current = onSearch;

  useEffect(() => {
    const query = value.trim();
    if (query === reported.current) return;
    const timer = setTimeout(() => {
      if (query === reported.current) return;
      reported.current = query;
      onSearchRef.current(query);
    }, delayMs);
    return () => clearTimeout(timer);
  }, [value, delayMs]);

  return (
    <search className="search-field">
      <label htmlFor={id} className="field__label">
        {label}
      </label>
      {hint && (
        <p id={`${id}-hint`} className="field__hint">
          {hint}
        </p>
      )}
      <input
        id={id}
        type="search"
        className="field__input"
        value={value}
        placeholder={placeholder}
        aria-describedby={hint ? `${id}-hint` : undefined}
        autoComplete="off"
        onChange={(event) => setValue(event.target.value)}
        onKeyDown={(event) => {
          // Enter searches at once instead of waiting for the pause.
          if (event.key === "Enter") {
            event.preventDefault();
            const query = value.trim();
            reported.current = query;
            onSearchRef.current(query);
          }
        }}
      />
    </search>
  );
}
