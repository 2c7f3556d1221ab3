import type { User, Wallet } from "../../../db/schema/index.ts";
import { toXdcAddress } from "../../chain/address.ts";

/** The user object of spec section 3, as the API returns it. Never secrets. */
export interface UserObject {
  id: number;
  username: string;
  name: string | null;
  githubUsername: string;
  email: string | null;
  avatarUrl: string | null;
  bio: string | null;
  location: string | null;
  website: string | null;
  role: User["role"];
  isProfileComplete: boolean;
  xdcWalletAddress: string | null;
}

export function toUserObject(user: User, wallet: Pick<Wallet, "address"> | undefined): UserObject {
  return {
    id: user.id,
    username: user.username,
    name: user.name,
    githubUsername: user.username,
    email: user.email,
    avatarUrl: user.avatarUrl,
    bio: user.bio,
    location: user.location,
    website: user.website,
    role: user.role,
    isProfileComplete: user.isProfileComplete,
    xdcWalletAddress: wallet ? toXdcAddress(wallet.address) : null,
  };
}
