import type { Camera, DataCapResumeResponse, PlansResponse } from '@farmcam/contract';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { apiRequest, errorMessage } from '../../lib/api-client.ts';
import { useAbilities } from '../../lib/access.ts';
import { Button } from '../ui/button.tsx';
import styles from './data-cap-banner.module.css';
import { applyDataChange } from '../../lib/data-changes.ts';

export type DataCap = NonNullable<Camera['dataCap']>;

/** "Data paused: Farmyard used its 5 GB this month." */
export function dataCapText(name: string, allowanceGb: number | null): string {
  const allowance =
    allowanceGb === null
      ? "its plan's data"
      : `its ${allowanceGb.toLocaleString('en-GB', { maximumFractionDigits: 1 })} GB`;
  return `Data paused: ${name} used ${allowance} this month.`;
}

/** POST /api/cameras/data-cap/{iccid}/resume; then every camera answer is read again. */
function useResumeData(iccid: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () =>
      apiRequest<DataCapResumeResponse>(
        `/api/cameras/data-cap/${encodeURIComponent(iccid)}/resume`,
        { method: 'POST', body: {} },
      ),
    onSuccess: () => applyDataChange(queryClient, 'data-cap'),
  });
}

export interface DataCapBannerProps {
  iccid: string;
  name: string;
  allowanceGb: number | null;
  dataCap: DataCap;
  /** The signed-in person may change cameras (owner and managers); viewers see no button. */
  canManage: boolean;
}

/**
 * A camera whose data was paused at its plan's allowance (decision 095), on the dashboard card and
 * the details page: the server decides (plansV2's dataCap, with the cost sentence); this says it
 * and offers the one-click resume to those who may.
 */
export function DataCapBanner({
  iccid,
  name,
  allowanceGb,
  dataCap,
  canManage,
}: DataCapBannerProps) {
  const resume = useResumeData(iccid);
  const costId = useId();
  return (
    <div className={styles.banner} role="status">
      <p className={styles.title}>
        <svg viewBox="0 0 20 20" width="18" height="18" aria-hidden="true" className={styles.icon}>
          <path fill="currentColor" d="M5 3h3v14H5zm7 0h3v14h-3z" />
        </svg>
        <span>{dataCapText(name, allowanceGb)}</span>
      </p>
      <p id={costId} className={styles.cost}>
        {dataCap.costNote}
      </p>
      {canManage && dataCap.canResume && (
        <Button
          variant="secondary"
          className={styles.button}
          isLoading={resume.isPending}
          aria-describedby={costId}
          onClick={() => resume.mutate()}
        >
          Resume until the end of the month
          <span className="visually-hidden"> for {name}</span>
        </Button>
      )}
      {resume.isError && (
        <p role="alert" className={styles.error}>
          {errorMessage(resume.error, 'The data could not be resumed. Please try again.')}
        </p>
      )}
    </div>
  );
}

/**
 * The details page's banner: the camera's dataCap from the dashboard's plansV2 answer (the same
 * query, so usually already in memory when coming from the dashboard).
 */
export function CameraDataCapBanner({ iccid, name }: { iccid: string; name: string }) {
  const abilities = useAbilities();
  const plans = useQuery({
    queryKey: ['cameras', 'plans'],
    queryFn: ({ signal }) => apiRequest<PlansResponse>('/api/cameras/plansV2', { signal }),
  });
  const camera = plans.data?.cameras.find((candidate) => candidate.SIM_ICCID === iccid);
  if (!camera?.dataCap) return null;
  return (
    <DataCapBanner
      iccid={iccid}
      name={name}
      allowanceGb={camera.usage.planAllowanceGB}
      dataCap={camera.dataCap}
      canManage={abilities.manageCameras}
    />
  );
}

/** Near the alert settings: what "pause data at the allowance" does, in a farmer's words. */
export function PauseDataNote({ id }: { id?: string }) {
  return (
    <p id={id} className={styles.note}>
      <strong>Pause data when the plan is used up:</strong> once this camera has used its plan's
      data for the month, we stop its data so it cannot run on, and e-mail you. You can resume it
      until the end of the month with one click; it comes back on by itself on the 1st.
    </p>
  );
}
