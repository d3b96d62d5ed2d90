/**
 * Application UIDs (AppIdSettingMap, AIM): 10000–19999; a new one takes the first free slot
 * ≥ `firstAvailableAppId`; removing a package frees its slot but raises that counter (in memory
 * only), so a freed UID is not reused in the same boot. Inference: after a reboot the counter
 * starts again at 10000 and freed UIDs are handed out again.
 */
import { FIRST_APPLICATION_UID, LAST_APPLICATION_UID, refuse } from './types.ts';

export class AppIds {
  /** AppIdSettingMap.mNonSystemSettings: index = uid − 10000, the holder's label or null. */
  private readonly appIds: (string | null)[] = [];
  private firstAvailableAppId = FIRST_APPLICATION_UID;

  /** AppIdSettingMap.acquireAndRegisterNewAppId. */
  acquire(label: string, packageName: string): number {
    for (let i = this.firstAvailableAppId - FIRST_APPLICATION_UID; i < this.appIds.length; i++) {
      if (this.appIds[i] === null) {
        this.appIds[i] = label;
        return FIRST_APPLICATION_UID + i;
      }
    }
    if (this.appIds.length > LAST_APPLICATION_UID - FIRST_APPLICATION_UID) {
      refuse(
        'INSTALL_FAILED_INSUFFICIENT_STORAGE',
        packageName,
        `Creating application package ${packageName} failed`,
      );
    }
    this.appIds.push(label);
    return FIRST_APPLICATION_UID + this.appIds.length - 1;
  }

  /** AppIdSettingMap.removeSetting: frees the slot and raises the first-available counter. */
  release(uid: number): void {
    const index = uid - FIRST_APPLICATION_UID;
    if (index >= 0 && index < this.appIds.length) this.appIds[index] = null;
    this.firstAvailableAppId = Math.max(this.firstAvailableAppId, uid + 1);
  }

  /** A reboot: allocation starts again from the first application UID. */
  reboot(): void {
    this.firstAvailableAppId = FIRST_APPLICATION_UID;
  }
}
