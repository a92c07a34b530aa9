package privacy

import (
	"context"
	"encoding/base64"
	"slices"

	"github.com/basaltchain/basalt/privacy/enclave"
	"github.com/basaltchain/basalt/privacy/privtx"
)

// fromMember reports whether the private transaction got comes from a
// member of the group its payload belongs to (later Besu, reference §9.1):
// otherwise a party could make a group's members run a transaction it is
// not entitled to. Only transactions sent by privacyGroupId are checked;
// a privateFor transaction's group is made of privateFrom and privateFor,
// so its sender is a member by construction. A group the manager does not
// know (4xx) fails the check; a manager that cannot answer is waited for,
// as for /receive.
func (p *Processor) fromMember(ctx context.Context, got *enclave.Received, number uint64) (bool, error) {
	ptx, err := privtx.Decode(got.Payload)
	if err != nil || ptx.PrivacyGroupID == nil {
		return true, nil // undecodable payloads are reported by ProcessBlock
	}
	var group *enclave.PrivacyGroup
	err = p.waitManager(ctx, number, func() error {
		group, err = p.enclave.RetrievePrivacyGroup(ctx, got.PrivacyGroupID)
		return err
	})
	if enclave.IsNotOurs(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return slices.Contains(group.Members, base64.StdEncoding.EncodeToString(ptx.PrivateFrom)), nil
}
