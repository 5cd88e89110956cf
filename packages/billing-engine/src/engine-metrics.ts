/**
 * What the engine counts, for the app's metrics (the server's lib/metrics.ts), given to it at
 * creation: the package keeps no registry of its own (decision 171).
 */
export interface EngineMetrics {
  /** Payments the engine took or saw declined, `count` of them at once (decision 071). */
  countPayments(isPaid: boolean, count?: number): void;
  /** One hand-over of an engine event to the app's handlers, by outcome (decision 077). */
  countEventDelivery(outcome: 'delivered' | 'retrying' | 'gave_up'): void;
}

/** Counts nothing: seeds and tests that write the ledger directly. */
export const uncounted: EngineMetrics = {
  countPayments: () => {},
  countEventDelivery: () => {},
};
