package rpctypes

import "testing"

func TestGroupOf(t *testing.T) {
	for name, want := range map[string]string{
		"eth_getBalance": "ETH", "privx_findOnChainPrivacyGroup": "PRIV", "txpool_besuStatistics": "TXPOOL",
		"rpc_modules": "RPC", "acme_x": "ACME", "nounderscore": "", "_x": "",
	} {
		if got := GroupOf(name); got != want {
			t.Errorf("GroupOf(%q) = %q, want %q", name, got, want)
		}
	}
	// Every method of the API documents is known.
	for _, m := range []string{"admin_addPeer", "clique_proposals", "debug_storageRangeAt", "ibft_getPendingVotes",
		"perm_reloadPermissionsFromFile", "perm_addAccountsToWhitelist", "txpool_besuTransactions", "eea_sendRawTransaction",
		"eth_getWork", "net_services", "miner_stop", "web3_sha3", "priv_getPrivacyPrecompileAddress"} {
		if !IsKnownMethod(m) {
			t.Errorf("%s not known", m)
		}
	}
}
