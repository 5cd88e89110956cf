/**
 * The Stripe SDK's own Node HTTP client with every request tracked as a billing provider call
 * (readiness and metrics, docs/decisions/071): one place sees every call the adapter makes,
 * instead of a wrapper around each of its thirty SDK calls. A request counts as failed when it
 * did not get an answer, or Stripe answered 429 or 5xx; a declined card (402) or an invalid
 * request (400) is Stripe answering, and is left to the adapter.
 */
import Stripe from 'stripe';
import { trackProviderCall } from '../../../lib/provider-calls.ts';

type HttpClient = ReturnType<typeof Stripe.createNodeHttpClient>;
type HttpResponse = Awaited<ReturnType<HttpClient['makeRequest']>>;

/** Namespaces whose calls are told apart by their second segment (`checkout/sessions`). */
const namespaces = new Set(['billing_portal', 'checkout', 'test_helpers']);

/**
 * `POST /v1/subscriptions/sub_123?expand[]=x` → `POST subscriptions`: the resource, never an id,
 * so the operation label stays a short fixed list.
 */
export function stripeOperation(method: string, path: string): string {
  const segments = (path.split('?')[0] ?? '').split('/').filter(Boolean).slice(1);
  const [first = 'unknown', second] = segments;
  const resource = namespaces.has(first) && second ? `${first}/${second}` : first;
  return `${method} ${resource}`;
}

class StripeServerError extends Error {
  constructor(readonly response: HttpResponse) {
    super(`Stripe answered ${response.getStatusCode()}`);
  }
}

export function createTrackedStripeHttpClient(
  inner: HttpClient = Stripe.createNodeHttpClient(),
): HttpClient {
  return {
    getClientName: () => inner.getClientName(),
    async makeRequest(host, port, path, method, headers, requestData, protocol, timeout) {
      try {
        return await trackProviderCall('billing', stripeOperation(method, path), async () => {
          const response = await inner.makeRequest(
            host,
            port,
            path,
            method,
            headers,
            requestData,
            protocol,
            timeout,
          );
          const status = response.getStatusCode();
          if (status === 429 || status >= 500) throw new StripeServerError(response);
          return response;
        });
      } catch (error) {
        // Counted as a failure above; the SDK still reads the answer (and may retry it).
        if (error instanceof StripeServerError) return error.response;
        throw error;
      }
    },
  };
}
