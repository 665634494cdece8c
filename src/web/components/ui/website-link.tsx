/** A website as a link that opens in a new tab, shown without its scheme. */
export function WebsiteLink({ url }: { url: string }) {
  if (!/^https?:\/\//i.test(url)) return <>{url}</>;
  return (
    <a href={url} target="_blank" rel="noopener noreferrer">
      {url.replace(/^https?:\/\//i, "")}
      <span className="visually-hidden"> (opens in a new tab)</span>
    </a>
  );
}
