/**
 * How much of the plan's mobile data a schedule uses: each recording pulls the clip from the
 * camera over its SIM. The rates are what the cameras send on the stream paths (docs/decisions/
 * 044): SD about 1 Mbit/s, HD about 3 Mbit/s, G.711 audio 64 kbit/s, plus RTSP/TCP overhead and
 * the second it takes to reach the first key frame.
 */
import type { LivestreamQuality } from '@farmcam/contract';

export const videoBitsPerSecond: Record<LivestreamQuality, number> = {
  SD: 1_000_000,
  HD: 3_000_000,
};
export const audioBitsPerSecond = 64_000;
const protocolOverhead = 1.05;
const connectSeconds = 1;
/** 365.25 / 12 / 7: weeks in an average month. */
const weeksPerMonth = 4.348;
const bytesPerGb = 1e9;

export interface DataEstimate {
  recordingsPerMonth: number;
  gbPerMonth: number;
  /** Share of the allowance, 0-100+ (null without an allowance). */
  percentOfAllowance: number | null;
}

export function estimateMonthlyData(input: {
  hoursPerDay: number;
  daysPerWeek: number;
  durationSeconds: number;
  quality: LivestreamQuality;
  includeAudio: boolean;
  allowanceGb: number | null;
}): DataEstimate {
  const recordingsPerMonth = input.hoursPerDay * input.daysPerWeek * weeksPerMonth;
  const bitsPerSecond =
    videoBitsPerSecond[input.quality] + (input.includeAudio ? audioBitsPerSecond : 0);
  const bytesPerRecording =
    ((input.durationSeconds + connectSeconds) * bitsPerSecond * protocolOverhead) / 8;
  const gbPerMonth = (recordingsPerMonth * bytesPerRecording) / bytesPerGb;
  return {
    recordingsPerMonth: Math.round(recordingsPerMonth),
    gbPerMonth,
    percentOfAllowance:
      input.allowanceGb && input.allowanceGb > 0 ? (gbPerMonth / input.allowanceGb) * 100 : null,
  };
}

/** "0.42 GB" / "12 GB": two decimals under 10 GB, whole numbers above. */
export function formatGb(gb: number): string {
  return gb < 10 ? `${gb.toFixed(2)} GB` : `${Math.round(gb)} GB`;
}
