import type { LivestreamCamera } from '@farmcam/contract';
import { render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, type LivestreamSettings } from '../livestream-settings.ts';
import { ConfigureStep } from './configure-step.tsx';

const camera: LivestreamCamera = {
  SIM_ICCID: '8944110000001030001',
  nicknameInDatabase: 'Farmyard',
  SubStatus: 'active',
  stripeSubscription: { productName: 'Heavy Streaming' },
  dataAllowanceGb: 50,
  livestream: null,
};

const idleProgress = {
  value: 0,
  isRunning: false,
  hasStarted: false,
  hasFailed: false,
  start: vi.fn(),
  complete: vi.fn(),
  reset: vi.fn(),
};

function renderStep(scheduleHours: number[], scheduleDays: LivestreamSettings['scheduleDays']) {
  render(
    <ConfigureStep
      camera={camera}
      settings={{ ...defaultSettings, scheduleHours, scheduleDays }}
      onChange={vi.fn()}
      onSubmit={vi.fn()}
      progress={idleProgress}
      isBusy={false}
      previewState="started"
    />,
  );
  return screen.getByText(/a week\)/).textContent ?? '';
}

describe('ConfigureStep data estimate', () => {
  it('says "1 a day, 1 day a week" with singulars', () => {
    const text = renderStep([9], ['MONDAY']);
    expect(text).toContain('(1 a day, 1 day a week)');
    expect(text).not.toContain('1 days');
  });

  it('keeps plurals for several days', () => {
    expect(renderStep([9, 10], ['MONDAY', 'FRIDAY'])).toContain('(2 a day, 2 days a week)');
  });
});
