import { describe, expect, it } from 'vitest';
import { pushEndpointRefusal } from './push-endpoint.rules.ts';

const production = { allowPrivateHosts: false };
const development = { allowPrivateHosts: true };

describe('pushEndpointRefusal (decision 123)', () => {
  it("takes the browsers' push services", () => {
    for (const endpoint of [
      'https://fcm.googleapis.com/fcm/send/abc:APA91b',
      'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
      'https://web.push.apple.com/QGuQy',
      'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
      'https://fcm.googleapis.com:443/fcm/send/abc',
    ]) {
      expect(pushEndpointRefusal(endpoint, production), endpoint).toBeNull();
    }
  });

  it('refuses anything else in production: plain http, addresses, local names, odd ports, credentials', () => {
    for (const endpoint of [
      'http://fcm.googleapis.com/fcm/send/abc',
      'https://127.0.0.1/push',
      'https://10.0.0.5/push',
      'https://169.254.169.254/latest/meta-data',
      'https://[::1]/push',
      'https://[fd00::1]/push',
      'https://2130706433/push',
      'https://localhost/push',
      'https://LOCALHOST./push',
      'https://metadata/computeMetadata',
      'https://db.internal/push',
      'https://printer.local/push',
      'https://fcm.googleapis.com:8443/fcm/send/abc',
      'https://user:secret@fcm.googleapis.com/fcm/send/abc',
      'file:///etc/passwd',
      'not a url',
    ]) {
      expect(pushEndpointRefusal(endpoint, production), endpoint).toMatch(/cannot send to/);
    }
  });

  it("allows this machine's own push service in development and tests, over https only", () => {
    expect(pushEndpointRefusal('https://127.0.0.1:41234/push/abc', development)).toBeNull();
    expect(pushEndpointRefusal('http://127.0.0.1:41234/push/abc', development)).toMatch(
      /cannot send to/,
    );
  });
});
