/**
 * "Chrome on Android" from a browser's user agent string, for the Activity screen's "from where".
 * A short, readable guess; the full string is kept in the log. Order matters: Edge and Opera
 * also say Chrome, Chrome also says Safari, an iPad may say Macintosh.
 */
const browsers: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/SamsungBrowser\//, 'Samsung Internet'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Safari\//, 'Safari'],
];

const systems: [RegExp, string][] = [
  [/iPhone/, 'iPhone'],
  [/iPad/, 'iPad'],
  [/Android/, 'Android'],
  [/Windows/, 'Windows'],
  [/Mac OS X|Macintosh/, 'Mac'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const firstMatch = (text: string, patterns: [RegExp, string][]) =>
  patterns.find(([pattern]) => pattern.test(text))?.[1] ?? null;

export function describeUserAgent(userAgent: string | null): string | null {
  if (userAgent === null || userAgent.trim() === '') return null;
  const browser = firstMatch(userAgent, browsers);
  const system = firstMatch(userAgent, systems);
  if (browser && system) return `${browser} on ${system}`;
  if (browser ?? system) return browser ?? system;
  // Not a browser (a script, a tool): its first word is still a clue.
  return userAgent.split(/[\s/]/, 1)[0]!.slice(0, 30);
}
