/**
 * Livestreams once set up (docs/requirements.md#livestream-flow): the customer's cameras that
 * may livestream with each one's summary, switching a schedule on or off, and sharing the embed
 * code by e-mail. Every call checks ownership (404) and eligibility (422) on the server.
 */
import type { LivestreamCamera, LivestreamCamerasResponse } from '@farmcam/contract';
import { cameraNameOf } from '@farmcam/contract/rules';
import { AppError } from '../../errors.ts';
import { writeAudit } from '../../lib/audit.ts';
import { renderEmail } from '../../providers/mail/mail.ts';
import { buildEmbedCode, embedPageUrl } from './embed.ts';
import { eligibilityOf } from './eligibility.ts';
import {
  auditActor,
  changeLivestream,
  requireEligibleCamera,
  requireLivestream,
  type CustomerScope,
  type LivestreamServiceDependencies,
} from './livestream-access.ts';
import { livestreamSummaries, livestreamSummary } from './livestream-summary.ts';
import { livestreamRepository as repository } from './livestream.repository.ts';

export type LivestreamManagementDependencies = Pick<
  LivestreamServiceDependencies,
  'db' | 'clock' | 'mailer' | 'rateLimiter' | 'publicUrl' | 'supportEmail'
>;

export function createLivestreamManagementService(deps: LivestreamManagementDependencies) {
  const { db, clock } = deps;

  return {
    /** The customer's cameras that may livestream, each with its livestream if set up. */
    async listCameras(customerId: string): Promise<LivestreamCamerasResponse> {
      const now = clock.now();
      const plans = (await repository.listCameraPlans(db, customerId)).filter(
        (plan) => eligibilityOf(plan, now).isEligible,
      );
      const livestreamIds = plans.flatMap((plan) =>
        plan.livestream_id ? [plan.livestream_id] : [],
      );
      const rows = await repository.listByIds(db, livestreamIds);
      const bySummary = await livestreamSummaries(deps, rows);
      const cameras: LivestreamCamera[] = plans.map((plan) => {
        const row = rows.find((candidate) => candidate.simIccid === plan.iccid);
        return {
          SIM_ICCID: plan.iccid,
          nicknameInDatabase: plan.nickname,
          SubStatus: 'active',
          stripeSubscription: { productName: plan.product_name ?? '' },
          dataAllowanceGb: Number(plan.data_allowance_gb ?? 0),
          livestream: row ? (bySummary.get(row.id) ?? null) : null,
        };
      });
      return { cameras, supportEmail: deps.supportEmail };
    },

    /** Switches a configured schedule on or off without changing it. */
    async setActive(scope: CustomerScope, input: { iccid: string; isActive: boolean }) {
      await requireEligibleCamera(deps, scope.customerId, input.iccid);
      const livestream = await requireLivestream(db, input.iccid);
      if (!livestream.configuredAt) {
        throw new AppError('CONFLICT', 'Choose a schedule for this livestream first');
      }
      const now = clock.now();
      const updated = await changeLivestream(
        db,
        scope,
        livestream,
        {
          isActive: input.isActive,
          disabledReason: null,
          ...(input.isActive && !livestream.isActive ? { activatedAt: now } : {}),
          updatedAt: now,
        },
        { action: input.isActive ? 'livestream.switch-on' : 'livestream.switch-off' },
      );
      return {
        success: true as const,
        message: input.isActive ? 'Livestream switched on' : 'Livestream switched off',
        data: await livestreamSummary(deps, updated),
      };
    },

    /**
     * E-mails the embed code to someone (typically the website manager). The e-mail carries the
     * server's own code for the camera, never HTML from the request, so this cannot be used to
     * send arbitrary content from our address.
     */
    async shareCode(scope: CustomerScope, input: { iccid: string; emailAddress: string }) {
      const plan = await requireEligibleCamera(deps, scope.customerId, input.iccid);
      const livestream = await requireLivestream(db, input.iccid);
      const recipient = input.emailAddress.trim().toLowerCase();
      await deps.rateLimiter.consumeAll([
        {
          key: `livestream:share:customer:${scope.customerId}`,
          limit: 10,
          windowSeconds: 3600,
          message: 'Too many shares in the last hour. Please try again later.',
        },
        {
          key: `livestream:share:recipient:${recipient}`,
          limit: 5,
          windowSeconds: 86_400,
          message: 'This address has been sent the code several times today already.',
        },
      ]);
      const code = buildEmbedCode(deps.publicUrl, livestream.publicId);
      const cameraName = cameraNameOf(plan.nickname, input.iccid);
      // The recipient learns who sent it (the farm's name and address), and replies go to them.
      const sender = await repository.findSender(db, scope.customerId);
      const senderName = sender?.name?.trim()
        ? `${sender.name.trim()} (${sender.email})`
        : (sender?.email ?? 'A Farmcam customer');
      await deps.mailer.send(
        renderEmail({
          kind: 'livestream',
          to: recipient,
          ...(sender ? { replyTo: sender.email } : {}),
          subject: `Livestream code for the ${cameraName} camera, from ${sender?.name?.trim() || sender?.email || 'a Farmcam customer'}`,
          heading: 'Add the farm livestream to your website',
          paragraphs: [
            `${senderName} has sent you the code that shows a livestream of their "${cameraName}" camera on a website. Reply to this e-mail to answer them.`,
            'Paste this code into the page where the video should appear (in an HTML or "embed" block):',
            code,
            'The video plays the latest recording on a loop and updates itself. If the code has not been on a website within 10 days, the recording schedule is switched off.',
            `Questions? Write to ${deps.supportEmail}.`,
          ],
          action: {
            label: 'Preview the livestream',
            url: embedPageUrl(deps.publicUrl, livestream.publicId),
          },
        }),
      );
      await writeAudit(db, {
        ...auditActor(scope),
        action: 'livestream.share-code',
        subjectType: 'sim',
        subjectId: input.iccid,
        details: { recipient },
      });
      return { success: true as const, message: 'Livestream code shared successfully!' };
    },
  };
}

export type LivestreamManagementService = ReturnType<typeof createLivestreamManagementService>;
