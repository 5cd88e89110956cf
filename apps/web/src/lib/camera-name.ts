/**
 * How every screen names a camera: its nickname, or "Camera 1071" from the SIM number's last four
 * digits; and, where a page is about one camera's billing, with its SIM beside it (decision 111).
 */
export function cameraNameOf(nickname: string | null | undefined, iccid: string): string {
  return nickname?.trim() || `Camera ${iccid.slice(-4)}`;
}

/** "SIM …1071": a SIM number shortened to what tells a farmer's cameras apart. */
export const shortSimOf = (iccid: string) => `SIM …${iccid.slice(-4)}`;

/** "Fuel tank (SIM …1071)": a camera named with its SIM, for titles of pages about it. */
export const cameraLabelOf = (nickname: string | null | undefined, iccid: string) =>
  `${cameraNameOf(nickname, iccid)} (${shortSimOf(iccid)})`;
