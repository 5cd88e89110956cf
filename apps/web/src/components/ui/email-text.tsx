/**
 * An e-mail address that, when it must wrap (a phone, a narrow column), wraps before the @
 * rather than in the middle of a word.
 */
export function EmailText({ address, className }: { address: string; className?: string }) {
  const at = address.lastIndexOf('@');
  if (at <= 0) return <span className={className}>{address}</span>;
  return (
    <span className={className}>
      {address.slice(0, at)}
      <wbr />
      {address.slice(at)}
    </span>
  );
}
