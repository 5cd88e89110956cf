/**
 * The wizard tab's own random id, sent with every SIM look-up so the server can limit guesses per
 * visitor session as well as per IP (an anonymous visitor has no sign-in session to key on).
 */
const storageKey = 'activation-wizard-session';
let memoryId: string | undefined;

function newId(): string {
  return crypto.randomUUID();
}

export function wizardSessionId(): string {
  try {
    const stored = sessionStorage.getItem(storageKey);
    if (stored) return stored;
    const id = newId();
    sessionStorage.setItem(storageKey, id);
    return id;
  } catch {
    // Storage can be switched off; one id per page load still groups the tab's calls.
    memoryId ??= newId();
    return memoryId;
  }
}

export const wizardHeaders = () => ({ 'X-Activation-Session': wizardSessionId() });
