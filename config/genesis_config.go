package config

import (
	"errors"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/params"
)

// blockForkKeys maps genesis keys to go-ethereum's block-numbered forks, in
// fork order. constantinopleFixBlock (Besu 1.3's name for Petersburg) is
// handled separately.
var blockForkKeys = []struct {
	key   string
	field func(*params.ChainConfig) **big.Int
}{
	{"homesteadBlock", func(c *params.ChainConfig) **big.Int { return &c.HomesteadBlock }},
	{"daoForkBlock", func(c *params.ChainConfig) **big.Int { return &c.DAOForkBlock }},
	{"eip150Block", func(c *params.ChainConfig) **big.Int { return &c.EIP150Block }},
	{"eip155Block", func(c *params.ChainConfig) **big.Int { return &c.EIP155Block }},
	{"eip158Block", func(c *params.ChainConfig) **big.Int { return &c.EIP158Block }},
	{"byzantiumBlock", func(c *params.ChainConfig) **big.Int { return &c.ByzantiumBlock }},
	{"constantinopleBlock", func(c *params.ChainConfig) **big.Int { return &c.ConstantinopleBlock }},
	{"petersburgBlock", func(c *params.ChainConfig) **big.Int { return &c.PetersburgBlock }},
	{"istanbulBlock", func(c *params.ChainConfig) **big.Int { return &c.IstanbulBlock }},
	{"muirGlacierBlock", func(c *params.ChainConfig) **big.Int { return &c.MuirGlacierBlock }},
	{"berlinBlock", func(c *params.ChainConfig) **big.Int { return &c.BerlinBlock }},
	{"londonBlock", func(c *params.ChainConfig) **big.Int { return &c.LondonBlock }},
	{"arrowGlacierBlock", func(c *params.ChainConfig) **big.Int { return &c.ArrowGlacierBlock }},
	{"grayGlacierBlock", func(c *params.ChainConfig) **big.Int { return &c.GrayGlacierBlock }},
	{"mergeNetsplitBlock", func(c *params.ChainConfig) **big.Int { return &c.MergeNetsplitBlock }},
}

// timeForkKeys maps genesis keys to go-ethereum's timestamp forks.
var timeForkKeys = []struct {
	key   string
	field func(*params.ChainConfig) **uint64
}{
	{"shanghaiTime", func(c *params.ChainConfig) **uint64 { return &c.ShanghaiTime }},
	{"cancunTime", func(c *params.ChainConfig) **uint64 { return &c.CancunTime }},
	{"pragueTime", func(c *params.ChainConfig) **uint64 { return &c.PragueTime }},
	{"osakaTime", func(c *params.ChainConfig) **uint64 { return &c.OsakaTime }},
	{"bpo1Time", func(c *params.ChainConfig) **uint64 { return &c.BPO1Time }},
	{"bpo2Time", func(c *params.ChainConfig) **uint64 { return &c.BPO2Time }},
	{"bpo3Time", func(c *params.ChainConfig) **uint64 { return &c.BPO3Time }},
	{"bpo4Time", func(c *params.ChainConfig) **uint64 { return &c.BPO4Time }},
	{"bpo5Time", func(c *params.ChainConfig) **uint64 { return &c.BPO5Time }},
	{"amsterdamTime", func(c *params.ChainConfig) **uint64 { return &c.AmsterdamTime }},
	{"bogotaTime", func(c *params.ChainConfig) **uint64 { return &c.BogotaTime }},
}

// blobScheduleKeys maps config.blobSchedule keys to go-ethereum's entries.
var blobScheduleKeys = []struct {
	key   string
	field func(*params.BlobScheduleConfig) **params.BlobConfig
}{
	{"cancun", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.Cancun }},
	{"prague", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.Prague }},
	{"bpo1", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO1 }},
	{"bpo2", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO2 }},
	{"bpo3", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO3 }},
	{"bpo4", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO4 }},
	{"bpo5", func(s *params.BlobScheduleConfig) **params.BlobConfig { return &s.BPO5 }},
}

// parseConfig reads the genesis "config" object.
func (g *Genesis) parseConfig(o object) error {
	c := new(params.ChainConfig)
	g.Core.Config = c

	v, ok := o.get("chainId")
	if !ok {
		return errors.New("config.chainId: missing")
	}
	id, err := parseBig("config.chainId", v, decOrHex)
	if err != nil {
		return err
	}
	if id.Sign() == 0 {
		return errors.New("config.chainId: must be positive")
	}
	c.ChainID = id

	for _, f := range blockForkKeys {
		v, ok := o.get(f.key)
		if !ok {
			continue
		}
		n, err := parseBig("config."+f.key, v, decOrHex)
		if err != nil {
			return err
		}
		if !n.IsUint64() {
			return fmt.Errorf("config.%s: block number %s does not fit in 64 bits", f.key, n)
		}
		*f.field(c) = n
	}
	if v, ok := o.get("constantinopleFixBlock"); ok {
		if c.PetersburgBlock != nil {
			return errors.New("config.constantinopleFixBlock: cannot be given together with config.petersburgBlock")
		}
		n, err := parseUint64("config.constantinopleFixBlock", v, decOrHex)
		if err != nil {
			return err
		}
		c.PetersburgBlock = new(big.Int).SetUint64(n)
	}
	if c.DAOForkBlock != nil {
		// Besu treats a DAO fork block <= 0 as "no DAO fork" and, when one is
		// set, always applies the DAO state change.
		if c.DAOForkBlock.Sign() == 0 {
			c.DAOForkBlock = nil
		} else {
			c.DAOForkSupport = true
		}
	}
	if v, ok := o.get("daoForkSupport"); ok {
		if c.DAOForkSupport, err = parseBool("config.daoForkSupport", v); err != nil {
			return err
		}
	}

	for _, f := range timeForkKeys {
		v, ok := o.get(f.key)
		if !ok {
			continue
		}
		t, err := parseUint64("config."+f.key, v, decOrHex)
		if err != nil {
			return err
		}
		*f.field(c) = &t
	}
	if _, ok := o.get("ubtTime"); ok {
		return errors.New("config.ubtTime: binary-trie (UBT) forks are not supported")
	}

	if v, ok := o.get("terminalTotalDifficulty"); ok {
		if c.TerminalTotalDifficulty, err = parseBig("config.terminalTotalDifficulty", v, decOrHex); err != nil {
			return err
		}
	}
	if v, ok := o.get("depositContractAddress"); ok {
		if c.DepositContractAddress, err = parseAddress("config.depositContractAddress", v); err != nil {
			return err
		}
	}
	if v, ok := o.get("contractSizeLimit"); ok {
		if g.ContractSizeLimit, err = parsePositive("config.contractSizeLimit", v); err != nil {
			return err
		}
	}
	if v, ok := o.get("evmStackSize"); ok {
		if g.EVMStackSize, err = parsePositive("config.evmStackSize", v); err != nil {
			return err
		}
	}
	if v, ok := o.get("isQuorum"); ok {
		if g.Quorum, err = parseBool("config.isQuorum", v); err != nil {
			return err
		}
		if g.Quorum && c.ChainID.Cmp(big.NewInt(1)) == 0 {
			// GoQuorum refuses it too: V 37/38 would be ambiguous with
			// EIP-155 signatures for chain 1.
			return errors.New("config.isQuorum: not with chainId 1 (GoQuorum private transactions sign with v 37/38, EIP-155's values for chain 1)")
		}
	}
	if v, ok := o.get("zeroBaseFee"); ok {
		if g.ZeroBaseFee, err = parseBool("config.zeroBaseFee", v); err != nil {
			return err
		}
	}
	if v, ok := o.get("fixedBaseFee"); ok {
		if g.FixedBaseFee, err = parseBool("config.fixedBaseFee", v); err != nil {
			return err
		}
	}
	if err := g.parseEngines(o); err != nil {
		return err
	}
	return parseBlobSchedule(c, o)
}

// parseEngines reads the consensus engine objects.
func (g *Genesis) parseEngines(o object) error {
	c := g.Core.Config
	if o.has("ethash") {
		c.Ethash = new(params.EthashConfig)
		eo, err := o.child("config.ethash", "ethash")
		if err != nil {
			return err
		}
		if v, ok := eo.get("fixeddifficulty"); ok {
			d, err := parseBig("config.ethash.fixeddifficulty", v, decOrHex)
			if err != nil {
				return err
			}
			if d.Sign() == 0 {
				return errors.New("config.ethash.fixeddifficulty: must be positive")
			}
			g.FixedDifficulty = d
		}
	}
	if o.has("clique") {
		co, err := o.child("config.clique", "clique")
		if err != nil {
			return err
		}
		cc, err := parseClique(co)
		if err != nil {
			return err
		}
		g.Clique = cc
		c.Clique = &params.CliqueConfig{Period: cc.BlockPeriodSeconds, Epoch: cc.EpochLength}
	}
	if o.has("ibft2") {
		io, err := o.child("config.ibft2", "ibft2")
		if err != nil {
			return err
		}
		if g.IBFT2, err = parseIBFT2(io); err != nil {
			return err
		}
		if g.IBFT2Transitions, err = parseTransitions(o, "ibft2"); err != nil {
			return err
		}
	} else if o.has("transitions") {
		if to, err := o.child("config.transitions", "transitions"); err == nil && to.has("ibft2") {
			return errors.New("config.transitions.ibft2: needs config.ibft2")
		}
	}
	if o.has("qbft") {
		qo, err := o.child("config.qbft", "qbft")
		if err != nil {
			return err
		}
		if g.QBFT, err = parseQBFT(o, qo); err != nil {
			return err
		}
		if g.QBFT.StartBlock > 0 && g.IBFT2 == nil {
			return errors.New("config.qbft.startblock: needs config.ibft2 (it is the first QBFT block of a migration from IBFT 2.0)")
		}
	} else if o.has("transitions") {
		if to, err := o.child("config.transitions", "transitions"); err == nil && to.has("qbft") {
			return errors.New("config.transitions.qbft: needs config.qbft")
		}
	}
	// Besu's precedence (JsonGenesisConfigOptions.getConsensusEngine).
	switch {
	case c.Ethash != nil:
		g.Consensus = "ethash"
	case g.IBFT2 != nil:
		g.Consensus = "ibft2"
	case g.QBFT != nil:
		g.Consensus = "qbft"
	case g.Clique != nil:
		g.Consensus = "clique"
	}
	return nil
}

func parseClique(o object) (*CliqueConfig, error) {
	cc := &CliqueConfig{BlockPeriodSeconds: 15, EpochLength: 30000, CreateEmptyBlocks: true, Raw: rawJSON(map[string]any(o))}
	if o == nil {
		cc.Raw = []byte("{}")
	}
	var err error
	for _, k := range []struct {
		keys []string
		dst  *uint64
	}{
		{[]string{"blockperiodseconds", "period"}, &cc.BlockPeriodSeconds},
		{[]string{"epochlength", "epoch"}, &cc.EpochLength},
	} {
		for _, key := range k.keys {
			if v, ok := o.get(key); ok {
				if *k.dst, err = parsePositive("config.clique."+key, v); err != nil {
					return nil, err
				}
				break
			}
		}
	}
	if v, ok := o.get("createemptyblocks"); ok {
		if cc.CreateEmptyBlocks, err = parseBool("config.clique.createemptyblocks", v); err != nil {
			return nil, err
		}
	}
	return cc, nil
}

func parseIBFT2(o object) (*IBFT2Config, error) { return parseBFTOptions("config.ibft2", o) }

// parseBFTOptions reads the options config.ibft2 and config.qbft share,
// with Besu's defaults.
func parseBFTOptions(path string, o object) (*IBFT2Config, error) {
	ic := &IBFT2Config{
		BlockPeriodSeconds:        1,
		EpochLength:               30000,
		RequestTimeoutSeconds:     1,
		GossipedHistoryLimit:      1000,
		MessageQueueLimit:         1000,
		DuplicateMessageLimit:     100,
		FutureMessagesLimit:       1000,
		FutureMessagesMaxDistance: 10,
		BlockReward:               new(big.Int),
		Raw:                       rawJSON(map[string]any(o)),
	}
	if o == nil {
		ic.Raw = []byte("{}")
	}
	var err error
	for _, k := range []struct {
		key string
		dst *uint64
	}{
		{"blockperiodseconds", &ic.BlockPeriodSeconds},
		{"epochlength", &ic.EpochLength},
		{"requesttimeoutseconds", &ic.RequestTimeoutSeconds},
		{"gossipedhistorylimit", &ic.GossipedHistoryLimit},
		{"messagequeuelimit", &ic.MessageQueueLimit},
		{"duplicatemessagelimit", &ic.DuplicateMessageLimit},
		{"futuremessageslimit", &ic.FutureMessagesLimit},
		{"futuremessagesmaxdistance", &ic.FutureMessagesMaxDistance},
	} {
		if v, ok := o.get(k.key); ok {
			if *k.dst, err = parsePositive(path+"."+k.key, v); err != nil {
				return nil, err
			}
		}
	}
	if v, key, ok, err := emptyBlockPeriod(o, path); err != nil {
		return nil, err
	} else if ok {
		if ic.EmptyBlockPeriodSeconds, err = parseUint64(path+"."+key, v, decOrHex); err != nil {
			return nil, err
		}
	}
	if v, ok := o.get("xblockperiodmilliseconds"); ok {
		// 0 (Besu's default) leaves blockperiodseconds in force.
		if ic.BlockPeriodMilliseconds, err = parseBlockPeriodMillis(path+".xblockperiodmilliseconds", v); err != nil {
			return nil, err
		}
	}
	if v, ok := o.get("blockreward"); ok {
		if ic.BlockReward, err = parseBig(path+".blockreward", v, decOrHex); err != nil {
			return nil, err
		}
	}
	if v, ok := o.get("miningbeneficiary"); ok {
		a, err := parseAddress(path+".miningbeneficiary", v)
		if err != nil {
			return nil, err
		}
		ic.MiningBeneficiary = &a
	}
	return ic, nil
}

// parseBlobSchedule reads config.blobSchedule. Besu's "osaka" entry is
// accepted when it equals the Prague entry, because go-ethereum keeps the
// Prague parameters until the first BPO fork.
func parseBlobSchedule(c *params.ChainConfig, o object) error {
	bo, err := o.child("config.blobSchedule", "blobSchedule")
	if err != nil || bo == nil {
		return err
	}
	s := new(params.BlobScheduleConfig)
	for _, f := range blobScheduleKeys {
		bc, err := parseBlobConfig(bo, f.key)
		if err != nil {
			return err
		}
		*f.field(s) = bc
	}
	osaka, err := parseBlobConfig(bo, "osaka")
	if err != nil {
		return err
	}
	if osaka != nil {
		prague := s.Prague
		if prague == nil {
			prague = params.DefaultPragueBlobConfig
		}
		if *osaka != *prague {
			return errors.New("config.blobSchedule.osaka: must equal the prague entry (go-ethereum changes blob parameters only at BPO forks)")
		}
	}
	c.BlobScheduleConfig = s
	return nil
}

func parseBlobConfig(bo object, key string) (*params.BlobConfig, error) {
	path := "config.blobSchedule." + key
	o, err := bo.child(path, key)
	if err != nil || o == nil {
		return nil, err
	}
	bc := new(params.BlobConfig)
	for _, f := range []struct {
		key string
		dst *int
	}{{"target", &bc.Target}, {"max", &bc.Max}} {
		v, ok := o.get(f.key)
		if !ok {
			return nil, fmt.Errorf("%s.%s: missing", path, f.key)
		}
		if *f.dst, err = parseInt(path+"."+f.key, v); err != nil {
			return nil, err
		}
	}
	v, ok := o.get("baseFeeUpdateFraction")
	if !ok {
		return nil, fmt.Errorf("%s.baseFeeUpdateFraction: missing", path)
	}
	if bc.UpdateFraction, err = parsePositive(path+".baseFeeUpdateFraction", v); err != nil {
		return nil, err
	}
	return bc, nil
}

// emptyBlockPeriod finds the empty-block period of a BFT object or
// transition: Besu spells the key "xemptyblockperiodseconds" (BftFork and
// JsonBftConfigOptions since it was added in 24.10); Basalt first read it
// as "emptyblockperiodseconds", which existing genesis files may hold, so
// both are read. Both present with different values is an error rather
// than a silent choice.
func emptyBlockPeriod(o object, path string) (v any, key string, ok bool, err error) {
	besu, hasBesu := o.get("xemptyblockperiodseconds")
	own, hasOwn := o.get("emptyblockperiodseconds")
	switch {
	case hasBesu && hasOwn && fmt.Sprint(besu) != fmt.Sprint(own):
		return nil, "", false, fmt.Errorf("%s: xemptyblockperiodseconds (%v) and emptyblockperiodseconds (%v) disagree; keep Besu's xemptyblockperiodseconds", path, besu, own)
	case hasBesu:
		return besu, "xemptyblockperiodseconds", true, nil
	case hasOwn:
		return own, "emptyblockperiodseconds", true, nil
	}
	return nil, "", false, nil
}

// maxBlockPeriodMillis bounds xblockperiodmilliseconds: a day, far
// beyond any use, so that the period in nanoseconds cannot overflow.
const maxBlockPeriodMillis = 24 * 60 * 60 * 1000

// parseBlockPeriodMillis reads xblockperiodmilliseconds: 0 (off) or a
// period of at most a day.
func parseBlockPeriodMillis(path string, v any) (uint64, error) {
	n, err := parseUint64(path, v, decOrHex)
	if err != nil {
		return 0, err
	}
	if n > maxBlockPeriodMillis {
		return 0, fmt.Errorf("%s: %d ms is above a day (%d)", path, n, uint64(maxBlockPeriodMillis))
	}
	return n, nil
}

// parsePositive reads a number that must be at least 1.
func parsePositive(path string, v any) (uint64, error) {
	n, err := parseUint64(path, v, decOrHex)
	if err != nil {
		return 0, err
	}
	if n == 0 {
		return 0, fmt.Errorf("%s: must be positive", path)
	}
	return n, nil
}

// parseQBFT reads config.qbft (qo) and config.transitions.qbft (under the
// config object c), with Besu's defaults and start-up checks.
func parseQBFT(c, qo object) (*QBFTConfig, error) {
	opts, err := parseBFTOptions("config.qbft", qo)
	if err != nil {
		return nil, err
	}
	if qo == nil {
		opts.Raw = []byte("{}")
	}
	qc := &QBFTConfig{IBFT2Config: *opts}
	if v, ok := qo.get("validatorcontractaddress"); ok {
		a, err := parseAddress("config.qbft.validatorcontractaddress", v)
		if err != nil {
			return nil, err
		}
		qc.ValidatorContractAddress = &a
	}
	if v, ok := qo.get("startblock"); ok {
		if qc.StartBlock, err = parsePositive("config.qbft.startblock", v); err != nil {
			return nil, err
		}
	}
	if qc.Transitions, err = parseTransitions(c, "qbft"); err != nil {
		return nil, err
	}
	// Contract mode needs an address, from the transition or an earlier
	// one or config.qbft.
	contract := qc.ValidatorContractAddress
	for i, t := range qc.Transitions {
		if t.ValidatorContractAddress != nil {
			contract = t.ValidatorContractAddress
		}
		if t.ValidatorSelectionMode == "contract" && contract == nil {
			return nil, fmt.Errorf("config.transitions.qbft[%d]: validatorselectionmode contract needs a validatorcontractaddress", i)
		}
	}
	return qc, nil
}

// parseTransitions reads config.transitions.<engine> (under the config
// object c), by ascending block. IBFT 2.0's transitions (Besu's BftFork)
// have no validator selection keys: those are QBFT's (QbftFork).
func parseTransitions(c object, engine string) ([]QBFTTransition, error) {
	to, err := c.child("config.transitions", "transitions")
	if err != nil || to == nil {
		return nil, err
	}
	v, ok := to.get(engine)
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("config.transitions.%s: expected an array, got %s", engine, jsonKind(v))
	}
	var ts []QBFTTransition
	for i, item := range list {
		path := fmt.Sprintf("config.transitions.%s[%d]", engine, i)
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: expected an object, got %s", path, jsonKind(item))
		}
		t, err := parseQBFTTransition(path, m)
		if err != nil {
			return nil, err
		}
		if engine != "qbft" && (t.ValidatorSelectionMode != "" || t.ValidatorContractAddress != nil) {
			return nil, fmt.Errorf("%s: validatorselectionmode and validatorcontractaddress are QBFT's; IBFT 2.0 takes validators only from block headers", path)
		}
		if n := len(ts); n > 0 && t.Block <= ts[n-1].Block {
			return nil, fmt.Errorf("%s.block: %d is not above the previous transition's block %d", path, t.Block, ts[n-1].Block)
		}
		ts = append(ts, t)
	}
	return ts, nil
}

func parseQBFTTransition(path string, m map[string]any) (QBFTTransition, error) {
	var t QBFTTransition
	o, err := lowerKeys(path, m)
	if err != nil {
		return t, err
	}
	v, ok := o.get("block")
	if !ok {
		return t, fmt.Errorf("%s.block: missing", path)
	}
	if t.Block, err = parsePositive(path+".block", v); err != nil {
		return t, err
	}
	if v, ok := o.get("blockperiodseconds"); ok {
		n, err := parsePositive(path+".blockperiodseconds", v)
		if err != nil {
			return t, err
		}
		t.BlockPeriodSeconds = &n
	}
	if v, key, ok, err := emptyBlockPeriod(o, path); err != nil {
		return t, err
	} else if ok {
		n, err := parseUint64(path+"."+key, v, decOrHex)
		if err != nil {
			return t, err
		}
		t.EmptyBlockPeriodSeconds = &n
	}
	if v, ok := o.get("xblockperiodmilliseconds"); ok {
		n, err := parseBlockPeriodMillis(path+".xblockperiodmilliseconds", v)
		if err != nil {
			return t, err
		}
		t.BlockPeriodMilliseconds = &n
	}
	if v, ok := o.get("validators"); ok {
		list, ok := v.([]any)
		if !ok || len(list) == 0 {
			return t, fmt.Errorf("%s.validators: expected a non-empty array of addresses", path)
		}
		for i, a := range list {
			addr, err := parseAddress(fmt.Sprintf("%s.validators[%d]", path, i), a)
			if err != nil {
				return t, err
			}
			t.Validators = append(t.Validators, addr)
		}
	}
	if v, ok := o.get("validatorselectionmode"); ok {
		s, _ := v.(string)
		switch mode := strings.ToLower(s); mode {
		case "blockheader", "contract":
			t.ValidatorSelectionMode = mode
		default:
			return t, fmt.Errorf("%s.validatorselectionmode: %v is not blockheader or contract", path, v)
		}
	}
	if v, ok := o.get("validatorcontractaddress"); ok {
		a, err := parseAddress(path+".validatorcontractaddress", v)
		if err != nil {
			return t, err
		}
		t.ValidatorContractAddress = &a
	}
	if v, ok := o.get("blockreward"); ok {
		if t.BlockReward, err = parseBig(path+".blockreward", v, decOrHex); err != nil {
			return t, err
		}
	}
	if v, ok := o.get("miningbeneficiary"); ok {
		a, err := parseAddress(path+".miningbeneficiary", v)
		if err != nil {
			return t, err
		}
		t.MiningBeneficiary = &a
	}
	return t, nil
}
