/** Notification set-ups for tests (decision 122). */
import type { Database } from '../../src/db/client.ts';
import { notificationPreferences } from '../../src/db/schema.ts';
import { defaultChoice } from '../../src/modules/notifications/notification-kinds.ts';
import { notificationsRepository } from '../../src/modules/notifications/notifications.repository.ts';
import { createNotifier } from '../../src/modules/notifications/notifier.ts';
import type { Mailer } from '../../src/providers/mail/mail.ts';
import type { TestContext } from './test-app.ts';

/** The notifier as the composition root builds it, over another mailer (one that refuses). */
export const testNotifier = (context: TestContext, mailer: Mailer = context.mailer) =>
  createNotifier({
    db: context.database.db,
    mailer,
    clock: context.clock,
    jobQueue: context.jobQueue,
    log: { warn: () => {} },
  });

/**
 * A member's choice of the camera alert e-mails (silence and livestream clips), as the Alerts
 * card's switch and the migration of the old `camera_alerts` column set it.
 */
export async function chooseCameraAlertEmails(
  db: Database,
  customerId: string,
  memberId: string,
  isOn = true,
): Promise<void> {
  const person = await notificationsRepository.ensurePerson(db, customerId, memberId);
  for (const kind of ['camera-silence', 'livestream-clips'] as const) {
    await db
      .insert(notificationPreferences)
      .values({ personId: person.id, kind, ...defaultChoice(false, kind), email: isOn })
      .onConflictDoUpdate({
        target: [notificationPreferences.personId, notificationPreferences.kind],
        set: { email: isOn },
      });
  }
}
