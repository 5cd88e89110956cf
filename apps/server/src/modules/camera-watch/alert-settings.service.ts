/**
 * A camera's alert settings (decision 094), stored here and read by each alert: silence (this
 * module), the data share and the pause at the allowance (budget protection), hours without a
 * clip (livestream). And each person's own choice to receive camera alert e-mails.
 */
import type { CameraAlertSettings, CameraAlertSettingsResponse } from '@farmcam/contract';
import { cameraAlertLimits } from '@farmcam/contract/rules';
import type { Database } from '../../db/client.ts';
import { AppError, notFound } from '../../errors.ts';
import { auditActorOf, writeAudit } from '../../lib/audit.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Principal } from '../auth/principal.ts';
import { hasAbility, type Access } from '../auth/access.ts';
import { requireOwnedSim } from '../ownership/ownership.ts';
import { cameraWatchRepository, type WatchSettingsRow } from './camera-watch.repository.ts';

/** A camera without a settings row has these (the table's defaults). */
export const defaultAlertSettings: CameraAlertSettings = {
  silenceHours: cameraAlertLimits.silenceHours.default,
  dataAlertPercent: 80,
  pauseDataAtAllowance: false,
  noClipHours: null,
};

const settingsOf = (row: WatchSettingsRow | undefined): CameraAlertSettings =>
  row
    ? {
        silenceHours: row.silenceHours,
        dataAlertPercent: row.dataAlertPercent,
        pauseDataAtAllowance: row.pauseDataAtAllowance,
        noClipHours: row.noClipHours,
      }
    : defaultAlertSettings;

/**
 * A switched-off (terminated) SIM sends nothing, so its alerts can never fire: they are not
 * offered for change (decision 111).
 */
function alertsUnavailableReason(sim: { state: string }): string | null {
  return sim.state === 'terminated'
    ? "This camera's SIM is switched off, so it sends no data and no alerts."
    : null;
}

export function createAlertSettingsService(deps: {
  db: Database;
  clock: Clock;
  /** A member's camera alert e-mails, kept with their notification choices (decision 122). */
  cameraAlertEmails: {
    get(customerId: string, access: Access): Promise<boolean>;
    set(customerId: string, access: Access, isOn: boolean): Promise<void>;
  };
}) {
  const { db, clock } = deps;

  async function requireCamera(customerId: string, iccid: string) {
    const sim = await requireOwnedSim(db, customerId, iccid);
    if (sim.state === 'stock') throw notFound('Camera not found');
    return sim;
  }

  async function openSilenceOf(iccid: string) {
    const open = await cameraWatchRepository.findOpenSilence(db, iccid);
    if (!open) return null;
    return {
      since: open.silentSince.toISOString(),
      hours: Math.floor((clock.now().getTime() - open.silentSince.getTime()) / 3_600_000),
    };
  }

  return {
    /** The camera's settings (the defaults without a row) and whether this person may change them. */
    async getSettings(
      customerId: string,
      access: Access,
      iccid: string,
    ): Promise<CameraAlertSettingsResponse> {
      const sim = await requireCamera(customerId, iccid);
      const row = await cameraWatchRepository.findSettings(db, iccid);
      const unavailable = alertsUnavailableReason(sim);
      return {
        ...settingsOf(row),
        canChange: unavailable === null && hasAbility(access, 'manageCameras'),
        unavailableReason: unavailable,
        silence: await openSilenceOf(iccid),
      };
    },

    async saveSettings(
      principal: Principal,
      customerId: string,
      access: Access,
      iccid: string,
      settings: CameraAlertSettings,
      context: { ip: string; userAgent?: string | undefined },
    ): Promise<CameraAlertSettingsResponse> {
      const now = clock.now();
      const saved = await db.transaction(async (transaction) => {
        const sim = await requireOwnedSim(transaction, customerId, iccid);
        if (sim.state === 'stock') throw notFound('Camera not found');
        const unavailable = alertsUnavailableReason(sim);
        if (unavailable) throw new AppError('CONFLICT', unavailable);
        const before = settingsOf(await cameraWatchRepository.findSettings(transaction, iccid));
        const row = await cameraWatchRepository.saveSettings(transaction, iccid, settings, now);
        const after = settingsOf(row);
        if (JSON.stringify(before) !== JSON.stringify(after)) {
          await writeAudit(transaction, {
            ...auditActorOf(principal),
            action: 'camera.alert-settings',
            subjectType: 'sim',
            subjectId: iccid,
            details: { name: sim.nickname, before, after },
            ip: context.ip,
            userAgent: context.userAgent ?? null,
          });
        }
        return after;
      });
      return {
        ...saved,
        canChange: hasAbility(access, 'manageCameras'),
        unavailableReason: null,
        silence: await openSilenceOf(iccid),
      };
    },

    /**
     * Whether this person receives camera alert e-mails (silence and livestream clips), the
     * shortcut on the camera's Alerts card to the same choice on their Notifications page
     * (decision 122); the owner's are on unless changed there.
     */
    async getMyCameraAlerts(customerId: string, access: Access) {
      if (!access.memberId) return { cameraAlerts: true, isOwner: true };
      return {
        cameraAlerts: await deps.cameraAlertEmails.get(customerId, access),
        isOwner: false,
      };
    },

    /** A member's own choice (each person chooses for themselves); the owner's stays on. */
    async setMyCameraAlerts(
      principal: Principal,
      customerId: string,
      access: Access,
      cameraAlerts: boolean,
      context: { ip: string; userAgent?: string | undefined },
    ) {
      if (!access.memberId) return { cameraAlerts: true, isOwner: true };
      const memberId = access.memberId;
      await deps.cameraAlertEmails.set(customerId, access, cameraAlerts);
      await writeAudit(db, {
        ...auditActorOf(principal),
        action: 'member.camera-alerts',
        subjectType: 'member',
        subjectId: memberId,
        details: { cameraAlerts },
        ip: context.ip,
        userAgent: context.userAgent ?? null,
      });
      return { cameraAlerts, isOwner: false };
    },
  };
}

export type AlertSettingsService = ReturnType<typeof createAlertSettingsService>;
