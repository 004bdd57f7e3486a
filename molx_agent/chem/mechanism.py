"""Mechanistic sanity of one atom-mapped step, at a chemist's glance (a flag, not a proof).

A template learned from one reaction, or a general (radius-0) template, can write a step that no reagent runs: the
retro-direction rule only says which bond breaks, not whether the forward partners can form it, nor where the
product's stereochemistry comes from. These steps are read from the atom map (the proposing template's,
``reactants>>product``; ``amide_condensation``, an amine condensed onto an amide-type carbonyl, is described at
:func:`_amide_condensations`):

- ``unactivated_carbanion``: a new C-C bond whose sp3 carbon gives up a hydrogen to form it (it acts as a carbanion,
  enol or enolate: aldol, Claisen, Michael donor, alkylation) while nothing on that carbon makes the hydrogen acidic:
  no neighbouring carbonyl, imine, nitrile, nitro, sulfonyl or other heteroatom, no alkene or alkyne (allylic,
  propargylic), no heteroaryl, electron-poor or acylamino-substituted aryl ring, not doubly benzylic. Towards a
  carbonyl, imine, halide or acceptor partner a heteroaryl ring activates only where a ring nitrogen takes the
  charge (2- and 4-picoline, a 1,3-azole's C2, an N-substituted pyrazole's or an isoxazole's 5-position), through a
  ring cation, a sulfonyl or acylamino substituent, or a carbonyl, nitro or nitrile group (on the ring or a ring
  carbonyl) that a resonance form of the carbanion reaches (o- and p-nitrotoluene, not m-): a methyl on a thiophene,
  furan, pyrrole, a pyridine's 3-position or an N-H pyrazole (3-amino-5-methylpyrazole "adding" to an aldehyde) or
  sildenafil's 3-methyl analogue "condensing" with acetaldehyde is flagged. Example:
  4-methoxyphenethyl bromide "deprotonated" at its benzylic CH2 to add to cyclohexanone (a venlafaxine route of a
  general template); the literature uses 4-methoxyphenylacetonitrile, whose CH2 the nitrile activates. When the
  partner is a carbonyl, imine, halide or acceptor carbon (a carbanion's partner), an alcohol or ether oxygen, a plain
  amine nitrogen or a single halogen next to the carbon does not activate it (an alcohol's CH2 "adding" to an
  aldehyde, methyl iodide "deprotonated"); sulfur, phosphorus, silicon, boron, a nitro or imine nitrogen, an acylated
  nitrogen or a carbamate oxygen (Beak, Hoppe) or two halogens (dichloromethyllithium) do, and an alpha-oxy or
  alpha-amino carbon joined to an arene or to a C-H partner is spared (Minisci, cross-dehydrogenative coupling). A
  carbon that keeps its hydrogens (a Grignard, organolithium, organozinc or boronate carbon, a Barbier halide) is never
  flagged, nor is an sp2 or sp carbon (arene, alkene, terminal alkyne, cyanide), nor an explicitly charged one. When
  the partner is an aryl halide or sulfonate on a ring that nothing activates for S_N_Ar, only the carbons a Pd- or
  Ni-catalysed arylation takes count as activated (:func:`_arylation_activated`: next to C=O, C=N, C#N, a heteroatom,
  an alkene or alkyne, a 2- or 4-azinylmethyl or diarylmethyl carbon): sertraline's 1-tetralone "arylated" at its
  benzylic C4 by 3,4-dichlorobromobenzene, which a remote ring carbonyl alone would let pass, is flagged. When the
  partner is an acetal, aminal or orthoester carbon, or a carbonyl carbon condensed to the alkene in the same step
  (:func:`_condensed_carbonyl`: an aldol or Knoevenagel condensation, a Wittig or Horner-Wadsworth-Emmons
  olefination), only a C-H that a carbonyl, nitrile, nitro, activating heteroatom (a phosphonium, phosphonate,
  sulfone) or a ring that takes the charge makes acidic counts (:func:`_acetal_partner_activated`), or, for a
  carbonyl, one whose anion is aromatic (a cyclopentadiene's, indene's or fluorene's CH2); a ketone, the weaker
  electrophile, takes only a C-H next to a C=O, C=N, C#N or an activating heteroatom (:func:`_condensation_activated`):
  amitriptyline's dibenzosuberane CH2 "condensed" with 3-(dimethylamino)propanal and loratadine's aza-dibenzosuberane
  CH2 (a 2-benzylpyridine's) with ethyl 4-oxopiperidine-1-carboxylate are flagged, while the diphenylmethyl anion
  added to an aldehyde (the alcohol kept, a lithiation) is not. On none of the USPTO-50K reactions and published
  steps.
- ``aniline_c_alkylation``: an aromatic C-H alkylated by an alkyl halide or sulfonate (Friedel-Crafts) on a molecule
  that carries a free aryl N-H: the halide alkylates the nitrogen first, and Lewis acids complex the amine.
- ``electrophile_coupling``: a new C-C bond between two carbons that each lose a halide or a sulfonate, where
  neither can be the organometallic partner: a heteroaryl chloride, a sulfonate, an acyl halide, or a carbon
  bearing two halogens (a carbenoid). Example: 2-(chloromethyl)-6-fluoroquinoline "from"
  2-chloro-6-fluoroquinoline and bromochloromethane (a general template, scored 0.53). Only a reductive
  cross-electrophile coupling (Ni, Zn) or a one-pot borylation of one partner joins such a pair, and the step names
  neither. A bromide or iodide, an alkyl or vinyl chloride or a chloride on an all-carbon aromatic ring can be
  metallated in situ (Grignard, halogen-lithium exchange, then an acyl chloride, chloroformate or alkyl halide as the
  electrophile: a one-pot the records write as two halides): not flagged. The same code names a vinyl C-H at the
  beta-carbon of an electron-poor alkene (an acrylate's, enone's, acrylonitrile's, vinyl sulfone's or
  nitroalkene's CH2=) joined to an acyl halide, chloroformate or carbamoyl halide carbon: both are electrophiles and
  no base makes that C-H a nucleophile. Example: dimethyl fumarate "from" methyl acrylate and methyl chloroformate
  (a general template, rated high as the drug's first route). A Heck reaction (an aryl or vinyl halide), a
  Morita-Baylis-Hillman reaction (the alpha-carbon) and a Michael addition to the beta-carbon (which keeps its
  hydrogen) are not this case. None of the 50,085 recorded USPTO-50K reactions nor of the ref-lin-600 and PaRoutes
  reference steps.
- ``unactivated_snar``: a new bond from an aromatic carbon to N, O or S that replaces a fluoride or an ether
  (alkoxy, aryloxy) group, between two molecules, on a ring that nothing activates: no pyridine-type ring nitrogen,
  no fused azine or quinolone ring, no nitro, nitrile, carbonyl, sulfonyl, CF3, vinylogous acceptor or heteroaryl
  group (ortho or para for an ether; anywhere for a fluoride). Fluorides and ethers take no Pd or Cu coupling, so
  only an activated ring lets them go. Example: N-benzyl amine "from" an aryl ethyl ether and benzylamine. Spared:
  an alkoxide or thiolate on a plain fluoroarene that no donor enriches (duloxetine from 1-fluoronaphthalene,
  atomoxetine from 2-fluorotoluene), an amine on a fluoroarene that another halogen helps (imidazole and
  4-chlorofluorobenzene), ring closures, and chlorides, bromides, iodides and sulfonates (Buchwald-Hartwig, Ullmann).
- ``alcohol_c_acylation``: a new bond from an acyl, imidoyl, sulfonyl or sulfinyl halide's carbon or sulfur to a
  carbon that loses its hydroxyl (an alcohol or phenol carbon). Forward, the hydroxyl attacks the acyl or sulfonyl
  group and gives the ester (a sulfonate, carboxylate or imidate ester), not this product: an acyl or sulfonyl
  halide does not break an alcohol's C-O bond. Example: 5-(phenylsulfonyl)pentan-2-one "from" 5-hydroxypentan-2-one
  and benzenesulfonyl chloride (a general template, n5-01104 of the all-600 run); a sulfone comes from a sulfinate
  salt and the alkyl halide or sulfonate, or from the thioether by oxidation. A halide partner (an alkyl halide with
  a sulfonyl chloride that sodium sulfite reduces in situ) is not flagged, nor a carboxylic acid's OH.
- ``stripped_amine``: a nitrogen that loses two or more carbons in the step, at least one a plain alkyl carbon (not
  benzylic, allylic or acyl): the step takes its nitrogen from a tertiary or secondary amine by stripping its alkyl
  groups. Example: 2-(2-iodophenyl)propanamide "from" the acid and triethylamine (a general template, n5-01718 of
  the all-600 run); an amine that is the base or solvent is no nitrogen source. Hydrogenolysis of a dibenzylamine,
  removal of a diallyl or a phthalimide, and the loss of one group (a demethylation) are not flagged.
- ``halide_selectivity``: the step replaces a chloride (or a bromide) on a carbon while the same molecule keeps a
  bromide or iodide (an iodide) of the same kind: both on aryl or vinyl carbons, or both on plain sp3 carbons. The
  more reactive halide reacts first: Pd(0) and Cu insert into C-I before C-Br before C-Cl, halogen-metal exchange
  follows the same order, and so does S_N2 displacement. Example: a Suzuki coupling at the chloride of
  1-bromo-4-chlorobenzene that keeps the bromide (the coupling takes the bromide), or an amine alkylated by the
  chloride end of 1-bromo-3-chloropropane. Spared: a reacting carbon that activation makes the faster site (an
  azine's 2- or 4-position, a pyridone, quinolone or coumarin ring, or a ring with an ortho/para acceptor, where
  S_N_Ar and the Pd insertion both favour it, 6-bromo-4-chloroquinazoline; a benzylic, allylic, propargylic,
  alpha-carbonyl or alpha-heteroatom sp3 carbon), a ring closure, halides of unlike kinds, a kept halide on a more
  substituted sp3 carbon, and sulfonates (their order against halides depends on the catalyst). None of the
  50,085 USPTO-50K reactions and 31,125 published route steps measured is flagged. The same code names a
  reduction that trades a halogen for a hydrogen (no new bond at the carbon) while the molecule keeps a halide
  reduced first: a heavier halogen on an aryl or vinyl carbon beside an aryl or vinyl one reduced, or a halogen at
  least as heavy on a benzylic, allylic, alpha-carbonyl or alpha-heteroatom sp3 carbon (hydrogenolysis, dissolving
  metals, tin hydrides and halogen-metal exchange all take C-I before C-Br before C-Cl, and activated alkyl halides
  before aryl ones). Example: phenytoin's route "dechlorinating" 5-bromo-5-(2-chlorophenyl)hydantoin with its
  tertiary alpha-carbonyl bromide kept. Spared: a reduced halide that is itself activated (zinc and acetic acid
  take an alpha-halo ketone's bromide beside an aryl iodide) and a plain alkyl halide kept beside an aryl one reduced
  (the order depends on the reductant). None of the 191 recorded USPTO-50K hydrodehalogenations (45 of them beside
  another Cl, Br or I) nor of the 48 published route steps (12) is flagged. The same code names a substitution by a
  nitrogen, oxygen or sulfur of another molecule at an aromatic carbon that nothing ortho or para activates (no ring
  nitrogen, nitro, carbonyl, nitrile, sulfonyl, imine or CF3 group there: a pyridine's 3-position, a pyrimidine's
  5-position) while the molecule keeps the same halogen (chlorine, bromine or iodine) on a carbon that a ring nitrogen
  or an acceptor ortho or para activates: S_N_Ar and Pd(0) insertion both take the activated one first.
  Example: moxonidine's first route of 2026-12-06, 2-amino-2-imidazoline at C5 of
  4,5,6-trichloro-2-methylpyrimidine (it substitutes C4). Spared: both sites activated (2,4-dichloropyrimidine) or
  neither, a carbon of a five-membered ring or at a ring fusion, a ring with a ring carbonyl, only a weak activation
  (a fused azine, an attached heteroaryl), a carbon partner, and unlike halogens (a fluoride's own S_N_Ar rate lets
  it leave from the weaker position: 2-chloro-3-fluoropyridine takes an azole at C3 in a published route, PaRoutes
  n1-08914). None of the 50,085 USPTO-50K reactions nor of the 31,125 published route steps is flagged.
- ``oxidation_without_oxidant``: a sulfur, selenium, nitrogen or phosphorus atom gains a bond to an oxygen and loses
  no neighbour (a sulfide made a sulfoxide or sulfone, an amine or azine an N-oxide, a phosphine its oxide) while that
  oxygen comes from water, hydroxide, carbonate, an alcohol or an acid: a molecule of C, H and O alone without an
  O-O bond, which oxidises nothing. Example: omeprazole's sulfoxide written from the sulfide and hydroxide (a template
  learned from records that map the work-up's hydroxide as the oxygen source; the same model also proposes the
  sulfide with H2O2 or mCPBA). A peroxide (H2O2, mCPBA, oxone), periodate, hypochlorite, nitrite or metal oxide is an
  oxidant and is not flagged, nor is an intramolecular oxygen.
- ``arene_hydroxylation``: an aromatic C-H of one precursor made a C-OH (or C-OR) with the oxygen of a peroxide (H2O2,
  an alkyl hydroperoxide, a peracid, a dialkyl peroxide) of another. A peroxide alone hydroxylates no arene cleanly
  or at a chosen carbon; a phenol comes from the aryl boronic acid or ester (a C-H borylation or a metalation and a
  borate first: steps the route does not show), the aryl halide, the aryl methyl ether or a diazonium salt. Example:
  propofol "from" 1,3-diisopropylbenzene and H2O2 at the carbon between the two isopropyls (a general template
  learned from three PaRoutes records, each a one-pot lithiation or borylation whose record keeps only the
  peroxide). A persulfate (the Elbs and Boyland-Sims oxidations of phenols and anilines) and an intramolecular
  oxygen are not flagged. None of the 50,085 recorded USPTO-50K reactions, none of the ref-lin-600 and PaRoutes n5
  reference steps, and the three PaRoutes n1 records above.
- ``halogen_from_solvent``: a new bond to a chlorine or bromine that comes from dichloromethane, chloroform,
  1,2-dichloroethane or dibromomethane, none of whose carbons the product keeps: a record that mapped the solvent as
  the halogen source (methotrexate's benzylic chloride "from" dichloromethane and the alcohol). The reaction itself
  is usually sound (thionyl chloride in dichloromethane; 1 USPTO-50K record and 55 published PaRoutes steps are
  written so), so the route judgement names the missing reagent at medium confidence and does not rank the route
  down. A solvent carbon built into the product (a methylenedioxy bridge, a dichlorocarbene) and CCl4 or CBr4 (Appel
  reagents) are not flagged.
- ``electrophile_selectivity``: an N-H, O-H or S-H nucleophile (or its anion, or a sulfinate's sulfur) forms a bond
  to a weaker electrophile (an alkyl or aryl halide or sulfonate, an epoxide, a carbonyl, an ester, a Michael
  acceptor) while the product keeps a far stronger one that it would attack first: an acyl halide, sulfonyl
  chloride, anhydride or isocyanate (and, for N and S nucleophiles, an isothiocyanate), carried through the step
  unchanged. Example: imatinib's side chain "from" N-methylpiperazine and 4-(chloromethyl)benzoyl chloride,
  N-alkylated at the benzylic chloride with the acid chloride kept (the piperazine's NH acylates first; the
  literature makes the amide first, or alkylates the ester or acid and activates it afterwards); a sulfone "from"
  4-fluorobenzenesulfinic acid and 3-iodo-2-hydroxy-2-methylpropanoyl chloride with the acid chloride kept (a
  bicalutamide route; the sulfinate S-acylates first), or from the sulfonyl chloride that sulfite reduces to the
  sulfinate in the same pot. Not flagged: a step that reacts at one strong electrophile while keeping another (an acyl chloride beside a sulfonyl chloride), or at a carboxylic acid (activated in situ, often as
  the acid chloride, which reacts before a sulfonyl chloride: 3-(chlorosulfonyl)benzoic acid esterified), a kept
  cyclic anhydride (diaryl maleic anhydrides survive the N-alkylation of their indoles), and a step that makes the
  strong group, and a ring closure (the nucleophile and its partner in one molecule: intramolecular, far faster).
  Also an N-H or S-H nucleophile reacting elsewhere while a primary alpha-halo ketone of another molecule keeps its
  carbon-halogen bond (a phenacyl halide, chloro- or bromoacetone: the alpha-amino or alpha-thio ketone forms first):
  methadone's 1-bromo-2-(dimethylamino)propane "by" reductive amination of bromoacetone with dimethylamine. Not
  flagged there: an alpha-halo aldehyde, a secondary or gem-dihalo carbon, a 1,3-dicarbonyl's ketone (ethyl
  4-chloroacetoacetate's cyclocondensations), a hydrazine or hydroxylamine nucleophile, an acid or acyl halide
  partner, and a step that displaces such a halide itself (a Hantzsch thiazole from 1,3-dichloroacetone).
  Also an azide source (the azide ion, hydrazoic acid, a silyl or stannyl azide) adding to a nitrile or alkyne or
  opening an epoxide while a primary or secondary alkyl chloride, bromide, iodide or sulfonate of the reactants keeps
  its bond: azide displaces such a halide (S_N2, at room temperature in DMF) long before it adds to a nitrile (a
  tetrazole needs 100-130 C). Example: a sartan's 5-aryltetrazole "from" 4'-(bromomethyl)biphenyl-2-carbonitrile and sodium azide
  with the benzylic bromide kept (the benzyl azide forms; the published routes N-alkylate with the bromide first and
  build the tetrazole last, or use the trityl-protected tetrazole). An organic azide in a cycloaddition (a click
  reaction), a step that displaces a halide with azide itself, and a 1-substituted tetrazole from a secondary amide
  (its imidoyl chloride, made in the same pot, takes the azide first: one published PaRoutes step keeps a benzylic
  chloride so) are not this case. On none of the 50,085 USPTO-50K reactions and 31,125 published steps.
  Also a C-H carbon made a carbanion (an alkylation, addition or olefination at an activated carbon) for a bond to
  another molecule while its own molecule keeps an alkyl chloride, bromide or iodide two or four sp3 carbons along,
  kept in the product: the carbanion closes the cyclopropane (3-exo-tet) or cyclopentane (5-exo-tet) first
  (4-chlorobutyronitrile gives cyclopropyl cyanide with base). Example: amitriptyline's side chain "by" a Horner
  olefination of dibenzosuberone with diethyl 3-bromopropylphosphonate. Spared: a ketone's or aldehyde's
  alpha-carbon in any step but an alkylation by a halide or sulfonate (its enol or enamine reacts in acid: a
  published route alpha-methylenates 4-chlorobutyrophenone with formaldehyde; a Fischer indole synthesis from
  5-bromopentanal). On none of the 50,085 USPTO-50K reactions and 31,125 published steps.
- ``aromatic_regiochemistry``: an electrophilic aromatic substitution (a halogenation, nitration, sulfonation, or a
  Friedel-Crafts acylation by an acyl halide, anhydride or acid, or alkylation by a secondary, tertiary, benzylic or
  allylic carbon or an alkene) at an aromatic C-H, between two molecules, where no electrophile goes. On a benzene
  ring: meta to every ortho/para director (toluene brominated meta) while one of them has a free ortho or para
  position; ortho or para to a weak donor (alkyl, aryl, acyloxy) or a halogen only, while a heteroatom donor (hydroxy,
  alkoxy, amino, acylamino, thioether) has a free position (4-methylanisole brominated next to its methyl); or, on a
  ring with meta directors alone, ortho or para to one of them, or, where every position is (two meta directors ortho
  to each other: a phthalimide, phthalic anhydride or phthalate), ortho to one of them while a position para to one
  and ortho to none is free (phthalimide is nitrated at C4; pomalidomide's 3-aminophthalimide comes from
  3-nitrophthalic anhydride, not from thalidomide's nitration); or ortho to a tertiary alkyl group (tert-butyl,
  trityl, chlorodiphenylmethyl: a carbon with no hydrogen and only alkyl, aryl or halogen groups) and ortho or para to
  no other director, while that group's para position is free (its bulk shields its ortho positions: tert-butylbenzene
  is brominated 97 % para; clotrimazole's route chlorinating trityl chloride ortho). A donor that carries a group and
  is flanked by two substituents counts as a weak one (steric inhibition of resonance), and an acylamino group's
  shielded ortho positions do not count as its free ones. On an alkylnaphthalene: a halogenation or nitration at a
  beta position while an alpha one of the same ring is free, or a tertiary alkyl group put at alpha (peri strain sends
  it to beta); likewise a halogenation or nitration at C6 or C7 of an alkylquinoline-type benzo ring (fused to an
  azine ring) while C5 or C8 is free. On other rings two textbook cases: an indole-type ring (indole, azaindole,
  indazole) halogenated or Friedel-Crafts-substituted elsewhere while its C3 is free, and an azine carbon next to a
  pyridine-type ring N halogenated, nitrated or sulfonated with no donor ortho or para to it. Not judged: a ring with
  a group whose direction is not clear-cut (vinyl, heteroaryl, imide N, sulfonate), amines under nitration or
  sulfonation (the anilinium directs meta), Friedel-Crafts on a benzene ring with a meta director (no position takes
  it: ``deactivated_arene``), the electrophiles of a directed ortho-metalation (DMF, CO2, chloroformates, aldehydes,
  methyl and plain primary alkyl halides, CBr4, C2Cl6), HX and halide ions (nucleophiles), POCl3 or MsCl on an
  N-oxide, an annulation with one bond where the groups direct, ring closures, C2 of an N-substituted indole and C6 of
  a 2-halo-, 2-alkoxy- or 2-dialkylaminopyridine (both lithiated there), a site an amino or hydroxy group directs to,
  pyridone-type rings.
- ``deactivated_arene``: a Friedel-Crafts acylation or alkylation (the kinds above) of a benzene ring that carries a
  strongly deactivating group (nitro, nitrile, carbonyl, imino, sulfonyl, trihalomethyl, ammonium) and no
  heteroatom donor (hydroxy, alkoxy, amino, acylamino, thioether): such a ring takes no Friedel-Crafts substitution
  at any position (letrozole's route "from" benzonitrile and 4-cyanobenzoyl chloride). A halogen alone does not
  deactivate enough (chlorobenzene is acylated para), and halogenation, nitration and sulfonation of such rings are
  real reactions (nitrobenzene brominated meta), judged by ``aromatic_regiochemistry`` instead. The same on a
  carbon of an azine ring (pyridine, pyrimidine, the hetero ring of a quinoline) with no heteroatom donor, N-H, ring
  carbonyl or N-oxide: the ring nitrogen withdraws and takes the Lewis acid. On such an azine ring with no donor at
  all, a nitration or sulfonation (chlorosulfonic acid, a sulfonyl chloride) is flagged too: the acid protonates the
  ring nitrogen and the pyridinium ion takes no electrophile (torasemide's route "chlorosulfonating" 4-chloropyridine
  at C3; the published routes sulfonate 4-hydroxypyridine, which the donor activates, then make the chloride). A
  halogen next to the ring nitrogen spares the ring: it makes the nitrogen too weak a base (2,6-dichloropyridine is
  nitrated at C3; one published PaRoutes step nitrates a 2,3,6-trifluoropyridine).
- ``ipso_substitution``: an electrophilic aromatic substitution (the kinds above, at any site) of a molecule that keeps
  an aryl boronic acid or ester, silyl or stannyl group on a benzene ring that a heteroatom donor (hydroxy, alkoxy,
  acylamino, thioether; amino outside nitration and sulfonation) makes electron-rich: electrophiles replace the
  boron, silicon or tin there first (ipso-halogenation and -nitration of electron-rich arylboronic acids,
  ipso-desilylation, halodestannylation), and chlorosulfonic or sulfuric acid protodeboronates such a boronic acid (a
  sildenafil route chlorosulfonated 2-ethoxyphenylboronic acid); likewise on a furan, thiophene or pyrrole ring
  without a meta director (electron-rich by its own heteroatom). Spared: a ring with a meta director or a ring
  nitrogen, or without a donor (3-carboxyphenylboronic acid, a 2-trimethylsilylbenzamide and phenylboronic acid are
  nitrated with the group kept in published routes), a MIDA boronate and a silicon bonded to a heteroatom (a TBDPS
  ether's phenyls). The group is put on after the substitution.
- ``unprotected_amino_acid``: a carboxylic acid or carboxylate (a coupling reagent activates it) acylates an amine of
  another precursor while its own molecule keeps a free primary alkyl amine on a carbon that carries a hydrogen (an
  alpha-, beta- or any amino acid), or a free N-methyl amine on an unbranched CH2 (sarcosine): activated, the acid
  acylates that amine as well, and the amino acid couples with itself (sarcosine to its diketopiperazine). Peptide
  and penicillin chemistry couples the Boc, Cbz or Fmoc derivative (or the Dane salt, the acid chloride
  hydrochloride, an enzyme with the amino ester), then deprotects. Example: ampicillin "from" 6-APA and free
  D-phenylglycine with a coupling reagent. Also any other alkyl amine N-H kept on the activated acid (a ring N-H,
  a hindered secondary amine) when the amine partner keeps a free carboxylic acid of its own: two unprotected amino
  acids, both activated, oligomerise (tadalafil's Pictet-Spengler acid with free sarcosine; on no USPTO-50K
  reaction or published step). Spared: an amine on a quaternary carbon (hindered), an acid chloride or
  ester partner, a ring closure. On 4 of the 50,085 recorded USPTO-50K reactions (records that omit the protecting
  group the patent used: beta-alanine, glycine, glutamic acid and an aminomethylphenylthioacetic acid coupled free)
  and on none of the 31,125 ref-lin-600 and PaRoutes reference steps; the N-methyl case on none of either (tadalafil
  "from" free sarcosine and the Pictet-Spengler ester; the published route acylates with chloroacetyl chloride and
  closes the ring with methylamine).
- ``competing_site``: an amine or alcohol N-H/O-H (a primary or secondary alkyl amine, a primary or secondary
  alcohol, a phenol) bonds to a partner from another molecule while its molecule keeps, unchanged, another group of
  the same kind on the same kind of carbon, which the partner attacks as readily: forward, a mixture (both, or the
  other isomer) unless the pair is told apart (a protecting group, a hindrance or an electronic difference the rule
  does not see). Two symmetry-equivalent groups are spared: a symmetric diol or diamine (ethylene glycol,
  piperazine, resorcinol) is used in excess and mono-functionalised statistically, as published routes do. Example:
  the urea of 4-hydroxypiperidine and a 5-aryl-piperidin-3-ol mesylated at the ring OH while the other secondary OH
  is kept. A kept phenol ortho to a carbonyl, nitro or imine group (held by its hydrogen bond:
  2,4-dihydroxybenzaldehyde alkylates at 4-OH) is spared. A selectivity warning (medium confidence, the route is
  not demoted), not a verdict: it fires on 30 of the 50,085 recorded USPTO-50K reactions and on 26 of the 8,893
  published ref-lin-600 and PaRoutes routes, where a hindrance, a neighbouring group or the order of addition
  decided (see ``docs/benchmarks.md``). Also an ester hydrolysed to the acid while its molecule keeps another that
  base or acid cleaves first: an unhindered aliphatic ester (CH3, CH2 or activated acyl carbon) kept while an aryl,
  vinyl or hindered one is hydrolysed, or a smaller alkyl ester kept beside one of the same acyl kind (atorvastatin's
  pyrrole-3-carboxylate saponified beside the side chain's CH2-CO2Et). Spared: a tert-butyl, benzyl, allyl,
  2-silylethyl or acyloxymethyl ester cleaved (acid, hydrogenolysis, Pd or fluoride tell them apart), a kept
  tert-butyl ester or lactone, two esters of one kind (one equivalent of base). On 1 of the 50,085 USPTO-50K
  reactions (a 2-aryl-2-methylpropanoate hydrolysed beside a methyl arylacetate) and on none of the 31,125 published
  steps.
- ``unprotected_c_acylation``: an aromatic C-H acylated (Friedel-Crafts, or a pyrrole's or indole's C-acylation)
  by the acid chloride, chloroformate, anhydride or acid of another molecule while the arene's molecule keeps a
  free primary or secondary alkyl amine or alcohol: the reagent acylates that N-H or O-H first. Example:
  atorvastatin's pyrrole "C-acylated" by ethyl chloroformate beside its free side-chain diol (a 240 s route).
  Phenols (C-acylated through the Fries rearrangement, or by the Nencki and Houben-Hoesch reactions) and anilines
  (the Sugasawa ortho-acylation) are spared. On none of the 50,085 USPTO-50K reactions nor of the 31,125 published
  steps (the C-acylations there that keep an O-H or N-H keep a phenol or an aniline: 9 and 1 of the 50,085, 31 and
  1 of the published steps counted per benchmark).
- ``amide_reductive_amination``: a new bond from the N-H of an amide, carbamate, urea or sulfonamide in one
  precursor to a ketone's carbonyl carbon in another, which ends as an sp3 carbon without its oxygen: a reductive
  amination by a nitrogen too weakly nucleophilic to form the iminium ion with a ketone. Example: bortezomib's
  alpha-amido boronic acid "from" the phenylalaninamide and the acylboronic acid (a general template; the published
  routes build the C-N bond by a substitution on an alpha-chloro boronate). Spared: aldehydes on an NH2 (primary
  amides and carbamates are alkylated by them with Et3SiH and TFA, through the N-acyliminium ion: 22 USPTO-50K
  records), formamide (the Leuckart reaction), ring closures and condensations that keep a C=N, C=C or C-O at the
  carbon. An aldehyde on a secondary amide-type N-H (a lactam, imide, N-substituted amide, carbamate, urea or
  sulfonamide) is flagged too: irbesartan's spiro-imidazolinone "reductively alkylated" by the tetrazole aldehyde.
  None of the 50,085 USPTO-50K reactions and 31,125 published route steps measured is flagged.
- ``destabilised_carbocation``: a new bond from a C-H of a benzene-type ring (fused or not) of one precursor to an
  sp3 carbon of another that loses a halide or sulfonate next to a carbonyl, nitrile, sulfonyl or nitro group, with
  no aryl, vinyl or heteroatom on that carbon to stabilise a cation: a Friedel-Crafts alkylation through a
  carbocation the acceptor destabilises. Example: naproxen "from" 2-methoxynaphthalene and 2-bromopropionic acid
  (the analysis worker's capping of the benzylic bond; the published routes couple the aryl bromide, or acylate and
  rearrange). None of the 50,085 USPTO-50K reactions is flagged.
- ``carbocation_rearrangement``: a new bond from a C-H of a benzene-type ring (fused or not) of one precursor to a
  primary sp3 carbon of another (a CH2 whose only other neighbour is a carbon) that loses a halide or sulfonate,
  when that neighbour is an sp3 carbon with a second carbon neighbour, or with a hydrogen and an O, N or S
  neighbour: a Friedel-Crafts alkylation whose primary cation rearranges by a hydride or alkyl shift before it
  alkylates (2-bromoethylamine's to the iminium ion). Example: ibuprofen's isobutyl group "from"
  2-phenylpropionic acid and isobutyl bromide (the analysis worker's capping of the benzylic bond; the published
  routes acylate isobutylbenzene, which is itself made from toluene and propene). Methyl and ethyl halides,
  benzylic, allylic and alpha-heteroatom carbons, ring closures and a C-H ortho to a group that directs a
  metalation (veratrole's C3 lithiated and alkylated by 1,6-dibromohexane, a published step) are spared. It fires
  on 1 of the 50,085 USPTO-50K reactions (benzene "alkylated" by 6-bromohexanenitrile) and on none of the 31,125
  published route steps.
- ``benzylic_halogenation``: a benzylic C-H of one precursor made a C-Cl, C-Br or C-I (a Wohl-Ziegler bromination
  with NBS, a chlorination with NCS or SO2Cl2, the halogen itself) while its molecule keeps a free aryl amine
  (an NH2 or NH-alkyl on an aromatic carbon, not acylated or sulfonylated) whose ring has a C-H ortho or para to it
  (any ring C-H of a five-membered ring), a free primary or secondary alkyl amine, or an N-H pyrrole or indole ring
  with a ring C-H. The halogenating agent substitutes the amine's ring or the pyrrole ring (an electrophilic
  substitution, fast at room temperature) or halogenates and oxidises the alkyl amine's nitrogen before the radical
  chain takes the benzylic hydrogen (rizatriptan's route brominating 5-methyltryptamine's methyl with NBS beside the
  indole's free C2-H and N-H; an N-Boc or N-sulfonyl indole is brominated at the benzylic carbon and is not
  flagged). Example: abemaciclib's side chain
  "from" 2-amino-5-methylpyridine and NBS (which gives 2-amino-3-bromo-5-methylpyridine; the published routes
  couple 5-((4-ethylpiperazin-1-yl)methyl)pyridin-2-amine with the 2-chloropyrimidine). A diaryl amine, an
  amide, carbamate or sulfonamide N-H, an ammonium salt and a phenol are not flagged (one published PaRoutes step
  brominates the methyl of a 2-(benzotriazolyl)phenol). None of the 50,085 USPTO-50K reactions (164 benzylic C-H
  halogenations; one keeps a 2-aminopyrimidine whose ring carbons are all substituted) and none of the 31,125
  published route steps (220) is flagged.
- ``mustard_nucleophile``: the nitrogen of a free secondary 2-haloethylamine (bis(2-chloroethyl)amine, an
  N-alkyl-2-bromoethylamine) bonds a carbon of another precursor (an aryl halide in a Buchwald-Hartwig or Ullmann
  coupling or an S_N_Ar, an alkyl halide, a Michael acceptor) while the product keeps the amine's 2-haloethyl group.
  The free base the step needs closes its aziridinium ion and alkylates itself and the partner first (the nitrogen
  mustards are handled as salts). Example: chlorambucil's route "from" ethyl 4-(4-bromophenyl)butanoate and
  bis(2-chloroethyl)amine by a Buchwald-Hartwig amination; the published routes put the two 2-hydroxyethyl groups on
  the aniline (ethylene oxide) and chlorinate them. Spared: an acylation, sulfonylation or phosphorylation
  (cyclophosphamide's amine salt and POCl3, fast in the cold), a reductive amination, the 2-haloethylamine as the
  electrophile (an aniline and bis(2-chloroethyl)amine give the aryl piperazine), and a primary 2-haloethylamine in an
  alkylation or a fast S_N_Ar (a nitro group or a ring nitrogen ortho or para to the carbon, or two acceptors), whose
  aziridine closes more slowly (one published PaRoutes step puts 2-chloroethylamine on methyl 4-fluoro-3-nitrobenzoate
  by S_N_Ar). A primary one is judged when it arylates any other ring: a Buchwald-Hartwig or Ullmann coupling, or an
  S_N_Ar that one carbonyl activates, takes hours with a base at 80-150 C and closes its aziridine (the agent's
  chlorambucil routes of 2026-12-08 coupled free 2-chloroethylamine with ethyl 4-(4-bromophenyl)butanoate, then with
  4-(4-fluorobenzoyl)butyric acid).
- ``diaryl_ketone_condensation``: a diaryl ketone (benzophenone, dibenzosuberone) condensed to the alkene in one
  step with a C-H that only one carbonyl, imine or nitrile activates (an aldol or Claisen-Schmidt condensation with a
  ketone's or ester's alpha-C-H). A diaryl ketone is the weakest carbonyl electrophile and its aldol adduct reverts:
  benzophenone gives no aldol product with acetone. Example: nortriptyline's route condensing dibenzosuberone with
  chloroacetone's methyl group. Spared: a doubly activated C-H (malononitrile, a cyanoacetate: a Knoevenagel
  reaction), a phosphorus ylide or phosphonate, a nitroalkane or sulfone, a fluorene- or cyclopentadiene-type anion,
  and a ring closure.
- ``organometallic_carried``: a carbon-metal bond of a precursor (lithium, sodium, potassium, magnesium, zinc,
  copper or aluminium) passes unchanged into the step's product while the step makes its bonds elsewhere. Such a
  reagent is made in situ and spent in the reaction of that bond: the acid, electrophile or protic reagent of any other
  step protonates or attacks it first. Example: chlorthalidone's route "chlorosulfonating" 4-chlorophenylmagnesium
  with chlorosulfonic acid and adding the sulfonyl chloride Grignard to phthalimide. Boron, tin and silicon reagents,
  which survive other steps, are not judged; nor is a step that makes or spends the carbon-metal bond (a
  transmetalation included).
- ``unsourced_stereocentre``: the product is chiral (not its own mirror image) but no precursor is, and a
  stereocentre of the product is unspecified in its precursor. The step gives the racemate (or a mixture of
  diastereomers) unless an asymmetric catalyst or reagent, a chiral auxiliary or a resolution is added, and the
  step names none. Example: methyl (S)-2-hydroxy-3-cyclopentylpropanoate from methyl glycolate and
  (bromomethyl)cyclopentane. An achiral product (meso, or cis/trans on a ring) is not flagged, nor a product of a
  chiral precursor (diastereoselection is possible).
- ``unsourced_alkene_geometry``: the product has an open-chain tetrasubstituted C=C with its E/Z geometry set (a real
  stereo bond once the map numbers no longer tell its substituents apart), and its two carbons are no double or
  triple bond in the precursors: a ketone olefination (McMurry, Wittig, Horner-Wadsworth-Emmons, Knoevenagel) or a
  dehydration, none of which controls the geometry of a tetrasubstituted alkene, so the step gives an E/Z mixture to
  separate. Example: tamoxifen's (Z)-triarylethylene by the McMurry coupling of propiophenone and
  4-hydroxybenzophenone. A double bond a precursor brings (a vinyl halide's coupling) or a triple bond made double
  (a carbometalation) is not flagged, nor a tri- or disubstituted alkene (an aldehyde's olefination is often
  selective). It fires on 2 of the 50,085 USPTO-50K reactions (a McMurry coupling and a Knoevenagel condensation
  onto an unsymmetrical cyclic ketone) and on 3 of the 8,893 published ref-lin-600 and PaRoutes routes.

On the recorded USPTO-50K reactions (atom maps of the data set) the two C-H rules fire on mis-mapped records only,
the coupling rule on 2 of 50,085 (heteroaryl chloride pairs), the substitution rule on 1 (a mis-mapped record), the
oxidation rule on 38 (records mapping the work-up's bicarbonate or carbonate as the oxygen), the halide,
electrophile and aromatic rules on none (the aromatic one on 1 of 1,538 published substitutions, a record that
compresses two steps), and the stereocentre rule on the asymmetric reductions and resolutions whose chiral catalyst
or separation the record leaves out: see ``docs/benchmarks.md``, section "Mechanism flags" and the sections after it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import Any

from rdkit import Chem, rdBase

from molx_agent.chem.fg_detect import functional_group_library
from molx_agent.chem.utils import map_free_smiles, strip_atom_maps

#: Atoms whose bond to an sp3 carbon makes it an alkylating agent (halides; sulfonates are read through their
#: oxygen in :func:`_leaves_alkyl`).
_HALOGENS = {17, 35, 53}
#: Every halogen, fluorine included (an acyl fluoride, a CF2 carbenoid carbon).
_ALL_HALOGENS = frozenset({9, 17, 35, 53})

_CW_CCW = (Chem.ChiralType.CHI_TETRAHEDRAL_CW, Chem.ChiralType.CHI_TETRAHEDRAL_CCW)

MECHANISM_TEXT = {
    "unactivated_carbanion": "the new C-C bond needs a carbanion at an unactivated C-H ({atom}): no carbonyl, "
                             "nitrile, nitro, sulfonyl, heteroatom or heteroaryl group next to it makes that "
                             "hydrogen acidic (an activated partner or an organometallic would be usual)",
    "aniline_c_alkylation": "the alkylating agent would N-alkylate the free aryl amine before it C-alkylates the "
                            "ring (Friedel-Crafts alkylation fails on free anilines)",
    "electrophile_coupling": "the new C-C bond joins two electrophiles ({pair}) and neither can be made the "
                             "organometallic partner: only a reductive cross-electrophile coupling (Ni, Zn) or a "
                             "one-pot borylation of one partner would do it, and the step names neither",
    "unactivated_snar": "the step replaces {group} on an aromatic carbon ({atom}) that nothing activates ({why}): "
                        "nucleophilic aromatic substitution needs an electron-poor ring, and aryl fluorides and "
                        "ethers do not take part in Pd or Cu couplings",
    "alcohol_c_acylation": "the new bond joins {partner} to a carbon that loses its hydroxyl ({atom}): forward, the "
                           "hydroxyl attacks the {group} and gives the {ester}, not this product{instead}",
    "stripped_amine": "the step takes its nitrogen ({atom}) from an amine and strips {n} alkyl groups off it: a "
                      "tertiary or secondary amine used this way is the reaction's base or solvent, not a nitrogen "
                      "source (ammonia, or an amine that already has the N-H bonds the product needs, would be)",
    "halide_selectivity": "the step replaces the {reacting} while the same molecule keeps the {kept}, which reacts "
                          "first ({why}): the step gives the other product unless the order of the steps changes",
    "oxidation_without_oxidant": "the step oxidises {atom} with the oxygen of {source}, which oxidises nothing: the "
                                 "oxygen comes from an oxidant (H2O2, mCPBA, oxone, periodate) that the step does "
                                 "not name",
    "competing_site": "the {kind} at {reacting} reacts while its molecule keeps another {kind} ({kept}) that the "
                      "partner attacks as readily: forward, a mixture unless one of them is protected (or a symmetric "
                      "diamine or diol is used in excess)",
    "unprotected_c_acylation": "the ring carbon ({atom}) is C-acylated while its molecule keeps a free {kind} "
                               "({kept}): the acid chloride, chloroformate or anhydride acylates that oxygen or "
                               "nitrogen first (an ester, carbonate or amide; the amine also takes up the Lewis "
                               "acid), so forward the ring is not acylated as drawn; protect the group (acetate, "
                               "silyl ether, Boc) or acylate the ring before the group is made",
    # the same code, for an ester hydrolysed beside another that base or acid cleaves at least as readily
    "competing_ester": "{reacting} is hydrolysed to the acid while its molecule keeps {kept}, which base or acid "
                       "cleaves first (its acyl group is less hindered or not conjugated, or its alkyl group is "
                       "smaller): forward, both go or a mixture forms; carry the ester to keep as a tert-butyl or "
                       "benzyl ester (cleaved by acid or hydrogenolysis), or hydrolyse before that ester is made",
    "unprotected_amino_acid": "the acid ({acid}) is activated while its molecule keeps a free primary or N-methyl "
                              "amine ({amine}): the activated acid acylates that amine as well and the amino acid couples "
                              "with itself; couple its Boc, Cbz or Fmoc derivative (or its Dane salt or acid chloride "
                              "hydrochloride) and deprotect after",
    # the same code, for an acid that keeps a more substituted amine N-H while its partner is a free amino acid too
    "unprotected_amino_acids_coupled": "the acid ({acid}) is activated while its molecule keeps a free amine N-H "
                                       "({amine}), and the amine ({partner}) belongs to a free amino acid: the "
                                       "coupling reagent activates both acids and each amine meets both, so the two "
                                       "amino acids oligomerise; couple one as its Boc, Cbz or Fmoc derivative and the "
                                       "other as its ester, and deprotect after",
    # the same code, for an amino acid esterified by an alcohol that is no Fischer esterification's solvent
    "unprotected_amino_acid_ester": "the acid ({acid}) is esterified by the alcohol ({partner}) while its molecule "
                                    "keeps a free primary or N-methyl amine ({amine}): a coupling reagent makes the "
                                    "activated acid acylate that amine first (the amino acid couples with itself), "
                                    "and a Fischer esterification needs the alcohol as its solvent; couple the Boc- "
                                    "or Cbz-amino acid and deprotect after (valaciclovir: Cbz-valine and acyclovir "
                                    "with DCC, then hydrogenolysis)",
    "arene_hydroxylation": "the step puts the oxygen of {source} on an aromatic C-H ({atom}): a peroxide alone "
                           "hydroxylates no arene cleanly or at a chosen carbon; a phenol comes from the aryl boronic "
                           "acid (a C-H borylation or a metalation first, which the step does not name), the aryl "
                           "halide, the methyl ether or a diazonium salt",
    "halogen_from_solvent": "the step takes the {halogen} at atom {atom} from {solvent}, a solvent that gives no "
                            "halogen: the halogenating agent (SOCl2, MsCl and LiCl, PCl5, NCS, NBS, HCl or HBr) is "
                            "missing from the step as written (records of this step often leave it out)",
    "electrophile_selectivity": "the {nucleophile} reacts at {reacting} while the product keeps {kept}, which it "
                                "attacks far faster ({forms}): forward, the step gives that product first; make "
                                "the {kept_short} later, or react it first",
    "aromatic_regiochemistry": "the {kind} substitutes the ring at {atom}, {why}: forward, the electrophile goes "
                               "to another position and the step gives another isomer (only a directed "
                               "metalation or a blocking group, which the step does not name, would set this "
                               "site)",
    "deactivated_arene": "the {kind} substitutes the ring at {atom}, which carries the {groups}{activation}: a "
                         "ring that deactivated takes no Friedel-Crafts substitution, so forward the step "
                         "gives nothing (the bond is made another way: an organometallic partner, a Pd-catalysed "
                         "coupling, or the group put on after the substitution)",
    "deactivated_azine": "the {kind} substitutes the ring at {atom}, which carries the {groups} and no activating "
                         "group: the strong acid of a nitration or sulfonation protonates the ring nitrogen, and the "
                         "pyridinium ion takes no electrophile under such conditions (pyridine itself needs oleum at "
                         "about 250 C with a mercury salt for its 3-sulfonic acid, and gives a few per cent of "
                         "3-nitropyridine), so forward the step gives nothing; the group comes from a pyridone, "
                         "hydroxy- or aminoazine that a donor activates (4-hydroxypyridine-3-sulfonic acid, then "
                         "POCl3 or PCl5), from an aminoazine by diazotisation (a Meerwein sulfonyl chloride), or by "
                         "a metalation",
    "ipso_substitution": "the {kind} at {atom} runs on a molecule that keeps {group} on an aromatic carbon "
                         "({where}) whose ring the {donor} makes electron-rich: electrophiles replace that group "
                         "there (ipso-substitution; strong acid also protodeboronates such an arylboronic acid), so "
                         "forward the step attacks it first; the group is put on after the substitution",
    "amide_condensation": "the {nitrogen} condenses onto the carbonyl of {acyl} ({atom}), which gives up its "
                          "oxygen: an amide-type carbonyl does not condense with an amine as a ketone does, so "
                          "forward the step needs it activated first (POCl3 or Tf2O to the imidoyl chloride, "
                          "Lawesson's reagent to the thioamide, a Meerwein salt to the imidate), which it does not "
                          "name; a guanidine comes from a cyanamide, an S-methylisothiourea or a "
                          "pyrazole-1-carboxamidine rather than a urea",
    "amide_reductive_amination": "the {nitrogen} is alkylated at the carbonyl carbon of a ketone ({atom}) as in a "
                                 "reductive amination: an amide, carbamate, urea or sulfonamide N-H is too weak a "
                                 "nucleophile to form the iminium ion with a ketone (aldehydes do react, with "
                                 "Et3SiH and TFA; formamide in the Leuckart reaction), so forward the step gives "
                                 "nothing; the amine is alkylated first and acylated afterwards",
    "amide_reductive_amination_aldehyde": "the {nitrogen}, which carries a substituent besides its acyl group, is "
                                          "alkylated at the carbonyl carbon of an aldehyde ({atom}) as in a reductive "
                                          "amination: the Et3SiH/TFA reductive alkylation of amides and carbamates "
                                          "takes a primary one (an NH2, through its N-acyliminium ion); a lactam, "
                                          "imide or N-substituted amide N-H is alkylated by the halide or "
                                          "sulfonate with a base (NaH, K2CO3), or the amine is alkylated first and "
                                          "acylated afterwards",
    "destabilised_carbocation": "the arene is alkylated at {atom} by {carbon}, which loses its leaving group next to "
                                "a {acceptor} group: a Friedel-Crafts alkylation needs a carbocation there, and the "
                                "{acceptor} destabilises it (the Lewis acid binds the acceptor instead), so forward "
                                "the step gives nothing, and a stereocentre at that carbon would not survive it; the "
                                "bond is made from the aryl halide instead (a Pd- or Ni-catalysed alpha-arylation of "
                                "the ester, amide or nitrile, a Negishi or Kumada coupling) or by a Friedel-Crafts "
                                "acylation followed by a rearrangement or chain extension",
    "carbocation_rearrangement": "the arene is alkylated at {atom} by the primary carbon {carbon}, which loses its "
                                 "leaving group, at a ring carbon no neighbouring group directs a metalation to: a "
                                 "Friedel-Crafts alkylation, which goes through a carbocation (or its Lewis acid "
                                 "complex) there, and a primary one rearranges first by a 1,2-hydride or "
                                 "alkyl shift from {beta} to the more stable secondary or tertiary cation (or one "
                                 "that a neighbouring O, N or S stabilises) "
                                 "(1-chloropropane and benzene give cumene, isobutyl bromide tert-butylbenzene), so "
                                 "forward the step gives mostly the branched isomer; the straight chain is made by a "
                                 "Friedel-Crafts acylation and a reduction of the ketone (Wolff-Kishner, Clemmensen "
                                 "or Et3SiH/TFA), or by coupling the aryl halide with the alkyl group (Kumada, "
                                 "Negishi, or Suzuki with an alkylborane)",
    "benzylic_halogenation": "the step halogenates the benzylic C-H at {atom} while its molecule keeps {amine}: "
                             "{why}; protect the amine (as its acetamide, Boc carbamate or phthalimide) before the "
                             "halogenation, or make the halomethyl group from the alcohol (SOCl2, PBr3, an Appel "
                             "reaction) or the aldehyde",
    "diaryl_ketone_condensation": "the step condenses the diaryl ketone at {ketone} with the C-H at {atom} to the "
                                  "alkene in one step, and only one carbonyl, imine or nitrile activates that C-H: a "
                                  "diaryl ketone is the weakest carbonyl electrophile and its aldol adduct reverts "
                                  "(benzophenone gives no aldol product with acetone or an ester enolate), so it "
                                  "condenses in one step only with a doubly activated C-H (malononitrile, a "
                                  "cyanoacetate: a Knoevenagel reaction, often with TiCl4) or a phosphorus ylide; "
                                  "otherwise the partner's lithium enolate is added at -78 C and the tertiary "
                                  "alcohol dehydrated, or the other side's organometallic (a Grignard reagent) added "
                                  "to the ketone and the carbinol dehydrated",
    "organometallic_carried": "the carbon-{metal} bond at {atom} passes through the step unchanged while the step "
                              "makes its bonds elsewhere: an organolithium, Grignard, organozinc or cuprate is made in "
                              "situ and spent at once in the reaction of that bond, and the acid, electrophile or "
                              "protic reagent of another reaction protonates or attacks it first, so forward the step "
                              "destroys the reagent; run this step on the halide (or the arene) and make the "
                              "organometallic afterwards (metal-halogen exchange, magnesium or zinc insertion)",
    "mustard_nucleophile": "the nitrogen at {atom} is the step's nucleophile (it bonds {partner}) while it carries "
                           "the 2-haloethyl group that the product keeps ({kept}): as the free base the step needs, "
                           "a 2-haloethylamine closes its aziridinium ion (a nitrogen mustard's reactive form) and "
                           "alkylates itself, the partner or the base faster than a coupling or a substitution "
                           "takes its N-H, so forward the step gives aziridines, piperazines and oligomers; a "
                           "nitrogen mustard is made from its bis(2-hydroxyethyl)amine (the amine with ethylene "
                           "oxide or 2-chloroethanol, then SOCl2, POCl3 or MsCl), and only a cold acylation or "
                           "phosphorylation takes the amine's salt directly",
    "unsourced_stereocentre": "the product is a single enantiomer but no precursor is chiral: the step sets "
                              "{centres} without a stereo source, so it gives the racemate unless an asymmetric "
                              "catalyst or reagent, a chiral auxiliary or a resolution is added",
    "unsourced_alkene_geometry": "the step forms the tetrasubstituted C=C between {bond} with the E/Z geometry "
                                 "drawn, from precursors in which it is no double bond (a ketone olefination such "
                                 "as a McMurry or Wittig coupling, or a dehydration): such a step does not control "
                                 "the geometry of a tetrasubstituted alkene, so it usually gives an E/Z mixture from "
                                 "which the isomer drawn must be separated (by crystallisation or chromatography), "
                                 "unless a stereospecific route is taken (a carbometalation of an alkyne, or a "
                                 "coupling of a vinyl halide of known geometry)",
}

#: Appended to ``unactivated_carbanion`` when the carbon is a bridgehead whose enolate Bredt's rule forbids.
_BREDT_TEXT = ("; the carbonyl or alkene next to it cannot take the charge: the carbon is a bridgehead, and its "
               "enolate or allyl anion would put a double bond there (Bredt's rule; 2-adamantanone enolises at no "
               "carbon at all)")
#: ``amide_condensation`` for a carbon nucleophile added to an N-H amide or lactam (:func:`_nh_amide_additions`).
_NH_AMIDE_ADDITION_TEXT = ("the carbon nucleophile ({nucleophile}) adds to the carbonyl of an amide or lactam that "
                           "carries an N-H ({atom}): the base or organometallic takes that N-H first, and the amidate "
                           "it gives is no electrophile, so forward the step needs the amide activated (a lactim "
                           "ether, an imidoyl chloride or thiolactam, an N-Boc or N-acyl lactam), which it does not "
                           "name")
#: A ``reagent_choice`` note (information: no cost, no confidence cap) on a free carboxylic acid whose alpha carbon
#: an alkyl halide or sulfonate alkylates (:func:`_free_acid_alpha_carbon`): the base takes the acid's O-H first, and
#: the carboxylate is itself O-alkylated (MeI and a carbonate make the methyl ester), so the step is run on the
#: dianion (two equivalents of LDA, cold) or on the ester, which is hydrolysed afterwards.  Ibuprofen's first route of
#: 2026-12-06 methylated 4-bromophenylacetic acid with MeI as if it were the ester.
ACID_DIANION_TEXT = ("the alpha carbon of a free carboxylic acid ({atom}) is alkylated through the acid's dianion "
                     "(two equivalents of LDA or LiHMDS, cold): with one equivalent of base the carboxylate forms "
                     "first and the alkyl halide esterifies it; alkylating the ester and hydrolysing it is the usual "
                     "alternative")
#: A ``reagent_choice`` note on an aryl or vinyl bromide or iodide that becomes the organometallic partner of a
#: carbonyl carbon (an addition or acylation) while its molecule keeps a nitrile or an ester
#: (:func:`_exchange_tolerant_groups`): magnesium metal at reflux, or n-BuLi above -78 C, attacks those groups, so the
#: organometallic is made by halogen-magnesium exchange with iPrMgCl.LiCl (Knochel's turbo-Grignard), cold, which
#: tolerates them.  Letrozole's first route of 2026-12-06 added 4-bromobenzonitrile to 4-formylbenzonitrile unsaid.
HALOGEN_EXCHANGE_TEXT = ("the {halide} ({atom}) becomes the organometallic while its molecule keeps {groups}: make it "
                         "by halogen-magnesium exchange with iPrMgCl.LiCl (Knochel's turbo-Grignard) at -20 C or "
                         "below and add the electrophile cold; magnesium metal, or n-BuLi above -78 C, would attack "
                         "{them} as well")
#: Appended to :data:`HALOGEN_EXCHANGE_TEXT` when the partner is an aldehyde.
_NHK_TEXT = " (with an aldehyde, a Nozaki-Hiyama-Kishi coupling, CrCl2 with a little NiCl2, is the other choice)"
#: Appended to ``unactivated_carbanion`` when the partner is an aryl halide or sulfonate (:func:`_arylation_activated`).
_ARYLATION_TEXT = ("; an aryl halide that no ring activates for S_N_Ar arylates only an enolate, nitrile or "
                   "nitronate carbon (Pd- or Ni-catalysed alpha-arylation), a picolyl or diarylmethyl C-H, or a C-H "
                   "next to a heteroatom")
#: Appended to ``unactivated_carbanion`` when the carbon carries an acyl halide (:func:`_acyl_halide_carbon`).
_KETENE_TEXT = ("; the carbon carries an acyl halide, which a base turns into the ketene (HCl is eliminated), so it "
                "gives no enolate: the alpha carbon is alkylated as the ester, nitrile or acid dianion and the acid "
                "chloride made afterwards")
#: Appended to ``unactivated_carbanion`` when the partner is an acetal, aminal or orthoester carbon
#: (:func:`_acetal_partner_activated`).
_ACETAL_TEXT = ("; an acetal, aminal or orthoester carbon condenses only with a C-H that a carbonyl, nitrile, nitro "
                "or azine makes acidic (DMF dimethyl acetal with a ketone, the Leimgruber-Batcho enamine of an "
                "o-nitrotoluene), not with a diarylmethane or a plain allylic C-H")
#: Appended to ``unactivated_carbanion`` when the step condenses a carbonyl to the alkene in one step
#: (:func:`_condensed_carbonyl`).
_CONDENSATION_TEXT = ("; a carbonyl condenses to the alkene in one step only with a C-H that a carbonyl, nitrile, "
                      "nitro, sulfonyl, phosphonium or phosphonate group or an azine makes acidic, or a "
                      "cyclopentadiene's or fluorene's: a diarylmethane or a plain benzylic C-H is first lithiated, "
                      "added to the carbonyl and the alcohol then dehydrated (or the organometallic made of the other "
                      "partner added to a ketone)")
#: Appended to ``unactivated_carbanion`` when the step condenses a ketone to the alkene in one step.
_KETONE_CONDENSATION_TEXT = ("; a ketone condenses to the alkene in one step only with a C-H next to a carbonyl, "
                             "nitrile, nitro, sulfonyl, phosphonium or phosphonate group, or a cyclopentadiene's or "
                             "fluorene's (a picolyl or nitrobenzyl C-H only with an aldehyde): otherwise the C-H is "
                             "first lithiated, added to the ketone and the alcohol then dehydrated, or the "
                             "organometallic made of the other partner added to the ketone")


def _parse(smiles: str) -> Chem.Mol | None:
    if not smiles:
        return None
    try:
        with rdBase.BlockLogs():  # an unparsable side is answered by an empty list, not by RDKit's stderr
            return Chem.MolFromSmiles(smiles)
    except Exception:  # noqa: BLE001 - an unparsable side has no mechanism verdict
        return None


def _mapped_atoms(mol: Chem.Mol) -> dict[int, Chem.Atom]:
    return {a.GetAtomMapNum(): a for a in mol.GetAtoms() if a.GetAtomMapNum()}


def _adopt_orphan_maps(reactants: Chem.Mol, product: Chem.Mol) -> None:
    """Give the reactant atoms that a template wrote unmapped the map numbers of the product atoms they became.

    A named template that adds a group as unmapped atoms (the methyl of ``CI`` in an alpha-methylation, the bromine
    of NBS, a Boc group) yields a step whose product numbers those atoms (every product atom carries a number)
    while the reactants number them 900 and up or not at all, so the new bond to the group is invisible. Each
    connected set of such product atoms is matched, by element and connectivity (any bond order), to reactant atoms
    that carry no product number (the first match, atoms used once); a set that matches nothing stays as it is. A
    fully mapped record (USPTO-50K, PaRoutes) has no such atom and is left unchanged."""
    rmaps = {a.GetAtomMapNum() for a in reactants.GetAtoms() if a.GetAtomMapNum()}
    orphans = [a.GetIdx() for a in product.GetAtoms() if a.GetAtomMapNum() and a.GetAtomMapNum() not in rmaps]
    if not orphans:
        return
    pmaps = {a.GetAtomMapNum() for a in product.GetAtoms() if a.GetAtomMapNum()}
    free = {a.GetIdx() for a in reactants.GetAtoms() if a.GetAtomMapNum() not in pmaps}
    left = set(orphans)
    while left:
        seed = min(left)
        component, stack = [], [seed]
        left.discard(seed)
        while stack:  # the connected set of orphan atoms around ``seed``
            i = stack.pop()
            component.append(i)
            for nb in product.GetAtomWithIdx(i).GetNeighbors():
                if nb.GetIdx() in left:
                    left.discard(nb.GetIdx())
                    stack.append(nb.GetIdx())
        component.sort()
        query = Chem.RWMol()
        index = {}
        for i in component:
            atom = product.GetAtomWithIdx(i)
            index[i] = query.AddAtom(Chem.Atom(atom.GetAtomicNum()))
        for bond in product.GetBonds():
            b, e = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
            if b in index and e in index:
                query.AddBond(index[b], index[e], Chem.BondType.SINGLE)
        # elements and connectivity only: any bond order matches (an ester's C=O, a ring)
        params = Chem.AdjustQueryParameters.NoAdjustments()
        params.makeBondsGeneric = True
        patt = Chem.AdjustQueryProperties(query.GetMol(), params)
        for match in reactants.GetSubstructMatches(patt, uniquify=False, maxMatches=100):
            if all(j in free for j in match):
                for i, j in zip(component, match, strict=True):
                    reactants.GetAtomWithIdx(j).SetAtomMapNum(product.GetAtomWithIdx(i).GetAtomMapNum())
                    free.discard(j)
                break


def _new_bonds(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom]) -> list[tuple[Chem.Atom, Chem.Atom]]:
    """The product's bonds, as (begin, end) product atoms, whose two mapped atoms were not bonded among the
    reactants (``rmap``: the reactants' atoms by map number)."""
    out = []
    for bond in product.GetBonds():
        x, y = bond.GetBeginAtom(), bond.GetEndAtom()
        mx, my = x.GetAtomMapNum(), y.GetAtomMapNum()
        if not mx or not my or mx not in rmap or my not in rmap:
            continue
        if reactants.GetBondBetweenAtoms(rmap[mx].GetIdx(), rmap[my].GetIdx()) is None:
            out.append((x, y))
    return out


def _cc_pairs(new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int]]:
    """Map-number pairs of the new C-C bonds among ``new`` (:func:`_new_bonds`)."""
    return [(x.GetAtomMapNum(), y.GetAtomMapNum()) for x, y in new if x.GetAtomicNum() == 6 and y.GetAtomicNum() == 6]


def _double_to_heteroatom(atom: Chem.Atom, skip: int) -> bool:
    """Whether ``atom`` has a double or triple bond to N, O or S (C=O, C#N, S=O), the bond to ``skip`` aside."""
    return any(
        bond.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE)
        and bond.GetOtherAtomIdx(atom.GetIdx()) != skip and bond.GetOtherAtom(atom).GetAtomicNum() in (7, 8, 16)
        for bond in atom.GetBonds()
    )


def _ring_activates(mol: Chem.Mol, aryl: Chem.Atom, carbon: Chem.Atom, polar: bool = False) -> bool:
    """An aromatic ring through ``aryl`` that carries a nitro, nitrile, carbonyl or sulfonyl substituent
    (o-nitrotoluene-like), or an acylated N or O (the directing group of a lateral lithiation, e.g. an o-toluidide in
    the Madelung indole synthesis), or holds a heteroatom (picoline-like): its benzylic hydrogens are acidic enough.

    ``polar`` (the partner is a carbonyl, imine, halide or acceptor carbon) asks where the charge of a carbanion at
    ``carbon`` (the benzylic carbon on ``aryl``) can go. A ring heteroatom counts only as :func:`_azine_activates`
    says: a pyridine-type nitrogen ortho or para on a six-membered ring (2- and 4-picoline, 4-methylpyrimidine), the C2
    of a 1,3-azole (2-methylbenzothiazole), the 5-position of an N-substituted pyrazole or an isoxazole (lateral
    lithiation), a ring cation (a pyridinium, an N-oxide). A nitro, carbonyl or nitrile substituent, or a ring
    carbonyl (4-methylcoumarin, a pyridone), counts only where a resonance form puts the charge on its O or N
    (:func:`_charge_reaches_acceptor`: o- and p-nitrotoluene, not m-; not the lactam carbonyl of a fused ring that
    the charge cannot reach). A methyl on a thiophene, furan, pyrrole, a pyridine's 3-position or an N-H pyrazole is
    no carbon nucleophile towards a carbonyl."""
    acceptor = False
    for ring in mol.GetRingInfo().AtomRings():
        if aryl.GetIdx() not in ring:
            continue
        members = set(ring)
        for idx in ring:
            atom = mol.GetAtomWithIdx(idx)
            if atom.GetAtomicNum() != 6 and not polar:
                return True
            for nb in atom.GetNeighbors():
                if nb.GetIdx() in members:
                    continue
                if nb.GetAtomicNum() in (7, 8) and any(
                        _double_to_heteroatom(acyl, nb.GetIdx()) for acyl in nb.GetNeighbors() if acyl.GetIdx() != idx):
                    return True  # an amide, carbamate or ester on the ring
                if nb.GetAtomicNum() == 16 and _double_to_heteroatom(nb, idx):
                    return True  # a sulfonyl or sulfinyl group
                if (nb.GetAtomicNum() == 7 and nb.GetFormalCharge() == 1) or _double_to_heteroatom(nb, idx):
                    if not polar:
                        return True  # a nitro; C=O, C#N
                    acceptor = True
                if (polar and nb.GetAtomicNum() in (7, 8, 16)
                        and mol.GetBondBetweenAtoms(idx, nb.GetIdx()).GetBondType() == Chem.BondType.DOUBLE):
                    acceptor = True  # a ring carbonyl: a pyridone, pyrimidinone, coumarin, quinolone
        if polar and _azine_activates(mol, aryl, ring):
            return True
    return acceptor and _charge_reaches_acceptor(mol, carbon)


def _azine_activates(mol: Chem.Mol, aryl: Chem.Atom, ring: tuple[int, ...]) -> bool:
    """Whether the heteroatoms of aromatic ``ring`` stabilise a carbanion on a carbon attached to its atom ``aryl``
    (see :func:`_ring_activates` with ``polar``)."""
    members = set(ring)
    if any(mol.GetAtomWithIdx(i).GetFormalCharge() > 0 for i in ring):
        return True  # a pyridinium, an N-oxide
    hetero = [nb for nb in aryl.GetNeighbors() if nb.GetIdx() in members and nb.GetAtomicNum() != 6]
    if len(ring) == 6:
        para = mol.GetAtomWithIdx(ring[(ring.index(aryl.GetIdx()) + 3) % 6])
        return any(_pyridine_type(nb) for nb in hetero) or _pyridine_type(para)
    if len(ring) != 5:
        return False
    if len(hetero) >= 2 and any(_pyridine_type(nb) for nb in hetero):
        return True  # the C2 of a thiazole, oxazole, imidazole, benzimidazole, triazole or tetrazole
    for x in hetero:  # the 5-position of a 1-substituted pyrazole or an isoxazole, isothiazole (lateral lithiation)
        if x.GetTotalNumHs() == 0 and not _pyridine_type(x) and any(
                _pyridine_type(y) for y in x.GetNeighbors() if y.GetIdx() in members and y.GetIdx() != aryl.GetIdx()):
            return True
    return False


def _charge_reaches_acceptor(mol: Chem.Mol, carbon: Chem.Atom) -> bool:
    """Whether a resonance form of the carbanion at ``carbon`` (one hydrogen removed) puts its charge on an O or N
    that is not a ring atom of a five-membered ring (RDKit's resonance structures): a carbonyl, nitro or nitrile
    group, or an azine nitrogen, conjugated with it. An undecidable case answers ``True`` (activated: no flag)."""
    try:
        if carbon.GetTotalNumHs() < 1:
            return True
        rw = _carbanion(mol, carbon)
        with rdBase.BlockLogs():
            before = {a.GetIdx() for a in rw.GetAtoms() if a.GetFormalCharge() < 0}
            ring_info = rw.GetRingInfo()
            for form in Chem.ResonanceMolSupplier(rw, Chem.KEKULE_ALL, _RESONANCE_FORMS):
                if form is None:
                    continue
                for a in form.GetAtoms():
                    if (a.GetFormalCharge() < 0 and a.GetIdx() not in before and a.GetAtomicNum() in (7, 8)
                            and not ring_info.IsAtomInRingOfSize(a.GetIdx(), 5)):
                        return True
        return False
    except Exception:  # noqa: BLE001 - no verdict without resonance forms: keep the lenient answer
        return True


def _carbanion(mol: Chem.Mol, carbon: Chem.Atom) -> Chem.RWMol:
    """A copy of ``mol`` with one hydrogen of ``carbon`` removed and its formal charge lowered by one, sanitised
    (RDKit's exception when it cannot be)."""
    rw = Chem.RWMol(mol)
    anion = rw.GetAtomWithIdx(carbon.GetIdx())
    n_h = anion.GetTotalNumHs()
    anion.SetNoImplicit(True)
    anion.SetNumExplicitHs(n_h - 1)
    anion.SetFormalCharge(anion.GetFormalCharge() - 1)
    with rdBase.BlockLogs():
        Chem.SanitizeMol(rw)
    return rw


#: At most this many resonance forms of a carbanion are read (:func:`_charge_reaches_acceptor`).
_RESONANCE_FORMS = 200


def _activating_heteroatom(nb: Chem.Atom, carbon: Chem.Atom) -> bool:
    """Whether heteroatom ``nb`` makes the hydrogens of its neighbour ``carbon`` removable for a polar C-C bond: S,
    P, Se, Si, B or Sn (dithiane, sulfone, phosphonate, silyl, boryl), a cationic or doubly bonded N (nitroalkane,
    isonitrile, ylide, 2-azaallyl imine), an acylated N or a carbamate O (the dipole-stabilised carbanions of Beak
    and Hoppe), or halogen on a carbon with two or more (dichloromethyllithium, trichloromethyl anion).  A plain
    alcohol, ether or amine oxygen or nitrogen, or one halogen, does not: methanol, THF, triethylamine and methyl
    iodide are not deprotonated at carbon."""
    z = nb.GetAtomicNum()
    if z in (5, 14, 15, 16, 34, 50):
        return True
    if z in _ALL_HALOGENS:
        return _halogen_count(carbon) >= 2
    if z == 7:
        if nb.GetFormalCharge() > 0 or any(b.GetBondType() != Chem.BondType.SINGLE for b in nb.GetBonds()):
            return True
        return any(_double_to_heteroatom(acyl, nb.GetIdx()) for acyl in nb.GetNeighbors()
                   if acyl.GetIdx() != carbon.GetIdx())
    if z == 8:
        return any(acyl.GetAtomicNum() == 6 and _double_to_heteroatom(acyl, nb.GetIdx())
                   and any(n.GetAtomicNum() == 7 for n in acyl.GetNeighbors())
                   for acyl in nb.GetNeighbors() if acyl.GetIdx() != carbon.GetIdx())
    return True  # another heteroatom (a metal, an N-oxide...): not judged


def _activated(mol: Chem.Mol, atom: Chem.Atom, partner_map: int, polar: bool = False) -> bool:
    """Whether an sp3 carbon's hydrogens are acidic enough for it to act as a carbon nucleophile.  Any alpha
    heteroatom counts unless ``polar`` (the partner is a carbonyl, imine, halide or acceptor carbon that keeps its
    hydrogens: a carbanion's partner), when only :func:`_activating_heteroatom` ones do; an alpha O or N radical or
    iminium joins an arene or a C-H partner too (Minisci, cross-dehydrogenative coupling)."""
    n_aryl = 0
    for kind, nb in _alpha_neighbours(atom, partner_map):
        if kind in ("pi_hetero", "pi_carbon") and atom.IsInRing() and _bredt_violation(mol, atom, nb) is not None:
            continue  # the enolate or allyl anion would put a double bond at a bridgehead (2-adamantanone's C1)
        if kind == "hetero":
            if not polar or _activating_heteroatom(nb, atom):
                return True  # an alpha heteroatom: dithiane, sulfone, phosphonate, nitroalkane, silyl, boryl
        elif kind == "aryl":
            n_aryl += 1
            if _ring_activates(mol, nb, atom, polar):
                return True
        elif kind != "alkyl":
            return True  # alpha to C=O, C=N, C#N; allylic; propargylic
    return n_aryl >= 2  # diarylmethane, fluorene


def _alpha_neighbours(atom: Chem.Atom, partner_map: int) -> Iterator[tuple[str, Chem.Atom]]:
    """``(kind, neighbour)`` for each neighbour of ``atom`` but the new bond's partner (map ``partner_map``):
    ``hetero`` (not a carbon), ``aryl`` (an aromatic carbon), ``pi_hetero`` (a carbon double- or triple-bonded to a
    heteroatom: C=O, C=N, C#N), ``pi_carbon`` (an alkene or alkyne carbon) or ``alkyl``."""
    for nb in atom.GetNeighbors():
        if partner_map and nb.GetAtomMapNum() == partner_map:
            continue
        if nb.GetAtomicNum() != 6:
            yield "hetero", nb
            continue
        if nb.GetIsAromatic():
            yield "aryl", nb
            continue
        pi = [b.GetOtherAtom(nb).GetAtomicNum() for b in nb.GetBonds()
              if b.GetOtherAtomIdx(nb.GetIdx()) != atom.GetIdx()
              and b.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE)]
        yield ("pi_hetero" if any(z != 6 for z in pi) else "pi_carbon" if pi else "alkyl"), nb


def _acyl_halide_carbon(carbon: Chem.Atom) -> bool:
    """Whether ``carbon`` is the C=O carbon of an acyl halide (an acid chloride's alpha C-H is no enolate donor:
    a base eliminates HCl to the ketene; diphenylacetyl chloride and triethylamine are a ketene preparation)."""
    return (carbon.GetAtomicNum() == 6 and any(nb.GetAtomicNum() in _HALOGENS for nb in carbon.GetNeighbors())
            and any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(carbon).GetAtomicNum() == 8
                    for b in carbon.GetBonds()))


def _arylation_activated(mol: Chem.Mol, atom: Chem.Atom, partner_map: int) -> bool:
    """Whether an sp3 C-H can be arylated by an aryl halide or sulfonate that no ring activates for S_N_Ar: the
    carbon is an enolate, nitrile or nitronate carbon (next to C=O, C=N, C#N: the Pd- or Ni-catalysed
    alpha-arylation), allylic or propargylic (vinylogous), next to a heteroatom (sulfone, alpha-amino or alpha-oxy
    C-H: photoredox arylation), a 2- or 4-azinylmethyl carbon (:func:`_azine_activates`: the benzylic arylation of
    picolines) or doubly benzylic (deprotonative cross-coupling of diarylmethanes). A benzylic C-H whose ring carries
    an acyl group further away (the C4 of 1-tetralone, an o-toluate) is not: an aryl halide takes no S_N_Ar from
    it, and a Pd catalyst arylates the enolate's alpha carbon instead."""
    n_aryl = 0
    for kind, nb in _alpha_neighbours(atom, partner_map):
        if kind == "aryl":
            n_aryl += 1
            if any(nb.GetIdx() in ring and _azine_activates(mol, nb, ring)
                   for ring in mol.GetRingInfo().AtomRings()):
                return True
        elif kind != "alkyl":
            return True
    return n_aryl >= 2


def _acetal_carbon(c_react: Chem.Atom, c_prod: Chem.Atom) -> bool:
    """Whether sp3 carbon ``c`` is an acetal, aminal or orthoester carbon (two or more single-bonded O or N
    neighbours: a dimethyl acetal, DMF dimethyl acetal, triethyl orthoformate) that loses one of them in the step."""
    if c_react.GetAtomicNum() != 6 or c_react.GetIsAromatic() or c_react.GetHybridization() != Chem.HybridizationType.SP3:
        return False
    if sum(b.GetBondType() == Chem.BondType.SINGLE and b.GetOtherAtom(c_react).GetAtomicNum() in (7, 8)
           for b in c_react.GetBonds()) < 2:
        return False
    return any(nb.GetAtomicNum() in (7, 8) for nb in _lost_neighbours(c_react, c_prod))


def _acetal_partner_activated(mol: Chem.Mol, atom: Chem.Atom, partner_map: int) -> bool:
    """Whether an sp3 C-H is acidic enough to condense with an acetal, aminal or orthoester carbon (no strong base
    survives the acid that ionises an acetal, and DMF dimethyl acetal deprotonates only an acidic C-H): next to a
    C=O, C=N or C#N, next to an activating heteroatom (:func:`_activating_heteroatom`: a sulfone, a nitroalkane), on
    a ring that takes the charge (:func:`_ring_activates` with ``polar``: 2-picoline, o-nitrotoluene in the
    Leimgruber-Batcho indole synthesis), or allylic where the alkene is conjugated with an acceptor (a vinylogous
    ketone). A diarylmethane or a plain allylic C-H is not."""
    conjugated = False
    for kind, nb in _alpha_neighbours(atom, partner_map):
        if kind == "pi_hetero" or (kind == "hetero" and _activating_heteroatom(nb, atom)):
            return True  # alpha to C=O, C=N, C#N; a sulfone, a nitroalkane
        if kind == "aryl" and _ring_activates(mol, nb, atom, polar=True):
            return True
        conjugated = conjugated or kind == "pi_carbon"
    return conjugated and _charge_reaches_acceptor(mol, atom)


def _condensed_carbonyl(product: Chem.Mol, pmap: dict[int, Chem.Atom], a_map: int, c_react: Chem.Atom) -> bool:
    """Whether the new bond from the carbon of map ``a_map`` to ``c_react`` is a double bond in the product while
    ``c_react``, a non-aromatic carbon, gives up a doubly bonded oxygen: a carbonyl condensed to an alkene in one step
    (an aldol or Knoevenagel condensation, a Wittig or Horner-Wadsworth-Emmons olefination)."""
    if c_react.GetIsAromatic():
        return False
    c_prod = pmap[c_react.GetAtomMapNum()]
    bond = product.GetBondBetweenAtoms(pmap[a_map].GetIdx(), c_prod.GetIdx())
    if bond is None or bond.GetBondType() != Chem.BondType.DOUBLE:
        return False
    lost = {nb.GetIdx() for nb in _lost_neighbours(c_react, c_prod)}
    return any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(c_react).GetAtomicNum() == 8
               and b.GetOtherAtomIdx(c_react.GetIdx()) in lost for b in c_react.GetBonds())


def _condensation_activated(mol: Chem.Mol, atom: Chem.Atom, partner_map: int, ketone: bool) -> bool:
    """Whether an sp3 C-H is acidic enough to condense with a carbonyl to the alkene in one step: as with an acetal
    (:func:`_acetal_partner_activated`) for an aldehyde; for a ketone, which is the weaker electrophile and whose
    aldol adduct reverts, only next to a C=O, C=N or C#N or an activating heteroatom (a nitroalkane, sulfone,
    phosphonium or phosphonate): 2-benzylpyridine's or 4-nitrotoluene's CH2 condenses with an aldehyde in hot acetic
    anhydride, but with a ketone only as its lithium salt, the alcohol then dehydrated."""
    if not ketone:
        return _acetal_partner_activated(mol, atom, partner_map)
    return any(kind == "pi_hetero" or (kind == "hetero" and _activating_heteroatom(nb, atom))
               for kind, nb in _alpha_neighbours(atom, partner_map))


def _diaryl_ketone_condensation(reactants: Chem.Mol, a: Chem.Atom, b: Chem.Atom, b_map: int) -> bool:
    """Whether carbon ``b``, a ketone condensed with C-H carbon ``a`` of another precursor to the alkene in one step
    (:func:`_condensed_carbonyl`), is a diaryl ketone and ``a`` has only one C=O, C=N or C#N neighbour and no
    activating heteroatom: an aldol condensation a diaryl ketone does not undergo (``diaryl_ketone_condensation``
    in the module docstring)."""
    if sum(nb.GetIsAromatic() for nb in b.GetNeighbors()) != 2 or _same_fragment(reactants, a, b):
        return False
    kinds = list(_alpha_neighbours(a, b_map))
    if sum(kind == "pi_hetero" for kind, _ in kinds) != 1:
        return False
    return not any(kind == "hetero" and _activating_heteroatom(nb, a) for kind, nb in kinds) \
        and not _aromatic_anion(reactants, a)


def _aromatic_anion(mol: Chem.Mol, carbon: Chem.Atom) -> bool:
    """Whether a carbanion at ``carbon`` (one hydrogen removed) is aromatic: a cyclopentadiene's, indene's or
    fluorene's CH, which condenses with aldehydes and ketones under a plain base (fulvenes, benzofulvenes)."""
    try:
        if carbon.GetTotalNumHs() < 1 or not carbon.IsInRingSize(5):
            return False
        return _carbanion(mol, carbon).GetAtomWithIdx(carbon.GetIdx()).GetIsAromatic()
    except Exception:  # noqa: BLE001 - no verdict: keep the lenient answer
        return True


def _free_aryl_amine(mol: Chem.Mol, atom_idx: int) -> bool:
    """Whether the reactant molecule of ``atom_idx`` carries an aniline N-H (not an amide, carbamate or
    sulfonamide N-H, not an aromatic ring N-H)."""
    fragment = _fragment_of(mol, atom_idx)
    for idx in fragment:
        n = mol.GetAtomWithIdx(idx)
        if n.GetAtomicNum() != 7 or n.GetIsAromatic() or n.GetFormalCharge() != 0 or n.GetTotalNumHs() == 0:
            continue
        if not any(nb.GetIsAromatic() for nb in n.GetNeighbors()):
            continue
        acylated = any(
            bond.GetBondType() == Chem.BondType.DOUBLE and bond.GetOtherAtom(nb).GetAtomicNum() in (8, 16)
            for nb in n.GetNeighbors() if not nb.GetIsAromatic() for bond in nb.GetBonds()
        )
        if not acylated:
            return True
    return False


def _leaves_alkyl(b_react: Chem.Atom, b_prod: Chem.Atom) -> bool:
    """Whether sp3 carbon ``b`` loses a halide or a sulfonate in the step (an alkylating agent). An alcohol is not
    counted: aniline and glycerol make a quinoline (Skraup) through acrolein, a real C-alkylation."""
    return _leaving_atom(b_react, b_prod) is not None


def _lost_neighbours(c_react: Chem.Atom, c_prod: Chem.Atom) -> list[Chem.Atom]:
    """The reactant neighbours of atom ``c`` that are not its neighbours in the product (by map number; an unmapped
    neighbour counts as lost)."""
    kept = {nb.GetAtomMapNum() for nb in c_prod.GetNeighbors() if nb.GetAtomMapNum()}
    return [nb for nb in c_react.GetNeighbors() if not (nb.GetAtomMapNum() and nb.GetAtomMapNum() in kept)]


def _halogen_count(atom: Chem.Atom) -> int:
    return sum(nb.GetAtomicNum() in _ALL_HALOGENS for nb in atom.GetNeighbors())


def _leaving_atom(c_react: Chem.Atom, c_prod: Chem.Atom) -> Chem.Atom | None:
    """The halogen or sulfonate oxygen (mesylate, tosylate, triflate, sulfate) that carbon ``c`` loses in the step
    (``None``: it loses none)."""
    for nb in _lost_neighbours(c_react, c_prod):
        if nb.GetAtomicNum() in _HALOGENS or _sulfonate_oxygen(nb):
            return nb
    return None


def _sulfonate_oxygen(atom: Chem.Atom) -> bool:
    """Whether ``atom`` is an oxygen bonded to sulfur (a mesylate's, tosylate's, triflate's or sulfate's)."""
    return atom.GetAtomicNum() == 8 and any(nb.GetAtomicNum() == 16 for nb in atom.GetNeighbors())


def _metallable(carbon: Chem.Atom, leaving: Chem.Atom) -> bool:
    """Whether a carbon that loses ``leaving`` could be made the nucleophile in situ: a bromide or iodide
    (halogen-metal exchange, Grignard), an alkyl or vinyl chloride (vinylmagnesium chloride) or a chloride on an
    all-carbon aromatic ring (p-tolylmagnesium chloride); never a heteroaryl chloride, a sulfonate, an acyl or
    imidoyl halide (C=O, C=N on the carbon), or a carbon bearing two or more halogens (a carbenoid, which adds to
    carbonyls, not to a C-X partner)."""
    if leaving.GetAtomicNum() not in _HALOGENS:
        return False
    if _halogen_count(carbon) >= 2:
        return False
    if _double_to_heteroatom(carbon, leaving.GetIdx()):
        return False
    if leaving.GetAtomicNum() in (35, 53):
        return True
    if carbon.GetIsAromatic():
        # a chloride on an all-carbon ring (p-tolylmagnesium chloride), not a heteroaryl one (an SNAr electrophile)
        mol = carbon.GetOwningMol()
        return any(carbon.GetIdx() in ring and all(mol.GetAtomWithIdx(i).GetAtomicNum() == 6 for i in ring)
                   for ring in mol.GetRingInfo().AtomRings())
    return carbon.GetHybridization() in (Chem.HybridizationType.SP3, Chem.HybridizationType.SP2)


#: The ``electrophile_coupling`` reason for an acceptor's beta-carbon joined to an acyl halide's carbon.
_ACCEPTOR_ACYLATION_TEXT = ("the new C-C bond joins the vinyl C-H at the beta-carbon of an electron-poor alkene ({atom}) "
                            "to the {partner}: both are electrophiles, and no base makes that C-H a nucleophile (a "
                            "Heck reaction takes an aryl or vinyl halide; an unsaturated ester or ketone comes from "
                            "the acid's esterification or an olefination)")

#: What makes the bond :data:`MECHANISM_TEXT` ``alcohol_c_acylation`` names, by the halide's group.
_ACYLATION_INSTEAD = {
    "sulfonyl": " (a sulfone comes from a sulfinate salt and an alkyl halide or sulfonate, or from the thioether by "
                "oxidation)",
    "acyl": " (a ketone comes from an organometallic and the acyl chloride or a Weinreb amide, or from a "
            "Friedel-Crafts acylation of the arene's C-H)",
}


def _acyl_halide(e_react: Chem.Atom, e_prod: Chem.Atom) -> tuple[str, str] | None:
    """(group, ester) when carbon or sulfur ``e`` is an acyl, imidoyl, sulfonyl or sulfinyl halide that loses its
    halogen in the step (``None``: it is not, or keeps the halogen)."""
    if e_react.GetAtomicNum() not in (6, 16):
        return None
    for nb in _lost_neighbours(e_react, e_prod):
        if nb.GetAtomicNum() not in _ALL_HALOGENS or not _double_to_heteroatom(e_react, nb.GetIdx()):
            continue
        if e_react.GetAtomicNum() == 16:
            n_oxo = sum(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(e_react).GetAtomicNum() == 8
                        for b in e_react.GetBonds())
            return (("sulfonyl", "sulfonate ester") if n_oxo >= 2 else ("sulfinyl", "sulfinate ester"))
        imidoyl = not any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(e_react).GetAtomicNum() in (8, 16)
                          for b in e_react.GetBonds())
        return ("imidoyl", "imidate") if imidoyl else ("acyl", "ester")
    return None


def _lost_hydroxyl(c_react: Chem.Atom, c_prod: Chem.Atom) -> Chem.Atom | None:
    """The hydroxyl (OH or alkoxide O-) that an alcohol or phenol carbon ``c`` loses in the step (``None``: it loses
    none, or ``c`` is a carboxylic acid's carbon)."""
    for nb in _lost_neighbours(c_react, c_prod):
        bond = c_react.GetOwningMol().GetBondBetweenAtoms(c_react.GetIdx(), nb.GetIdx())
        if (nb.GetAtomicNum() == 8 and nb.GetDegree() == 1 and bond.GetBondType() == Chem.BondType.SINGLE
                and (nb.GetTotalNumHs() >= 1 or nb.GetFormalCharge() == -1)
                and not _double_to_heteroatom(c_react, nb.GetIdx())):
            return nb
    return None


def _plain_alkyl(carbon: Chem.Atom, nitrogen: Chem.Atom) -> bool:
    """Whether ``carbon`` (a neighbour of ``nitrogen``) is a plain sp3 alkyl carbon: bonded otherwise to sp3 carbons
    only, so not benzylic, allylic, propargylic or next to a carbonyl (hydrogenolysis, Pd or an acid cleave benzyl,
    allyl and PMB groups), nor an N,O-acetal or aminal carbon (an oxazolidine or an acetonide hydrolyses)."""
    if carbon.GetAtomicNum() != 6 or carbon.GetIsAromatic() or carbon.GetHybridization() != Chem.HybridizationType.SP3:
        return False
    return _sp3_carbon_neighbours(carbon, nitrogen.GetIdx())


def _sp3_carbon_neighbours(carbon: Chem.Atom, skip: int) -> bool:
    """Whether every neighbour of ``carbon`` but atom ``skip`` is a non-aromatic carbon with single bonds only (no
    heteroatom, arene, alkene, alkyne or carbonyl next to ``carbon``)."""
    for nb in carbon.GetNeighbors():
        if nb.GetIdx() == skip:
            continue
        if nb.GetAtomicNum() != 6 or nb.GetIsAromatic() or any(b.GetBondType() != Chem.BondType.SINGLE
                                                                for b in nb.GetBonds()):
            return False
    return True


def _stripped_alkyls(n_react: Chem.Atom, n_prod: Chem.Atom) -> int:
    """How many plain alkyl carbons a nitrogen loses in the step when it loses two or more carbons, at least one
    of them plain (0 otherwise): triethylamine "giving" a primary amide's NH2."""
    lost = [nb for nb in _lost_neighbours(n_react, n_prod) if nb.GetAtomicNum() == 6]
    if len(lost) < 2:
        return 0
    return sum(_plain_alkyl(c, n_react) for c in lost)


#: Reactivity order of the leaving halides towards Pd(0), Cu, halogen-metal exchange and S_N2: iodide first.
_HALIDE_RANK = {17: 1, 35: 2, 53: 3}
_HALIDE_WHY = {
    "sp2": "Pd(0) and Cu insert into C-I before C-Br before C-Cl, and halogen-metal exchange follows the same order",
    "sp3": "S_N2 displaces iodide before bromide before chloride",
    "reduction": "hydrogenolysis, dissolving metals, tin hydrides and halogen-metal exchange remove iodide before "
                 "bromide before chloride, and a benzylic, allylic, alpha-carbonyl or alpha-heteroatom halide before "
                 "an aryl one",
    "position": "a ring nitrogen or an electron-withdrawing group ortho or para to it activates that carbon for "
                "S_N_Ar and for Pd(0) insertion, and nothing ortho or para activates the carbon that reacts here",
}


def _halide_kind(carbon: Chem.Atom, halogen: Chem.Atom) -> str | None:
    """``"sp2"`` (an aryl or vinyl halide), ``"sp3"`` (an alkyl halide) or ``None`` (an acyl or imidoyl halide, a
    carbon with two or more halogens, an alkynyl halide): the kinds :func:`_halide_selectivity` compares."""
    if carbon.GetAtomicNum() != 6 or _halogen_count(carbon) >= 2 or _double_to_heteroatom(carbon, halogen.GetIdx()):
        return None
    if carbon.GetIsAromatic() or carbon.GetHybridization() == Chem.HybridizationType.SP2:
        return "sp2"
    if carbon.GetHybridization() == Chem.HybridizationType.SP3:
        return "sp3"
    return None


def _carbon_degree(carbon: Chem.Atom) -> int:
    return sum(nb.GetAtomicNum() == 6 for nb in carbon.GetNeighbors())


def _fast_site(mol: Chem.Mol, carbon: Chem.Atom, halogen: Chem.Atom, kind: str) -> bool:
    """Whether activation makes ``carbon`` the faster site whatever its halide: an aryl carbon ortho/para to a ring
    nitrogen or an acceptor, or on a ring with a ring carbonyl (a 2-pyridone's or coumarin's 4-position, a
    3-chloroisoquinolinone: S_N_Ar, and the faster Pd insertion of 4-chloroquinazolines), a vinyl carbon of a
    vinylogous acceptor (a 3-chloroenone), or a benzylic, allylic, propargylic, alpha-carbonyl or alpha-heteroatom
    sp3 carbon (S_N2 and S_N1 both faster)."""
    if kind == "sp2":
        if carbon.GetIsAromatic():  # an azine or an acceptor-substituted ring, or a pyridone, quinolone, coumarin
            return _snar_ring(mol, carbon)[0] or _ring_holds(mol, carbon, _ring_carbonyl)
        return _vinylogous_acceptor(carbon, halogen.GetIdx())
    return _activated_alkyl_halide(carbon, halogen)


def _halide_selectivity(reactants: Chem.Mol, product: Chem.Mol, pmap: dict[int, Chem.Atom], c_react: Chem.Atom,
                        c_prod: Chem.Atom, partner: Chem.Atom) -> tuple[Chem.Atom, Chem.Atom, Chem.Atom, str] | None:
    """(reacting halogen, kept carbon, kept halogen, kind) when carbon ``c`` replaces a chloride or bromide in a new
    bond to ``partner`` (another molecule) while its molecule keeps a more reactive halide of the same kind (an
    alkyl halide on a carbon no more substituted) through the step; ``None`` otherwise (see ``halide_selectivity``
    in the module docstring)."""
    leaving = next((nb for nb in _lost_neighbours(c_react, c_prod) if nb.GetAtomicNum() in (17, 35)), None)
    if leaving is None or _same_fragment(reactants, c_react, partner):
        return None
    kind = _halide_kind(c_react, leaving)
    if kind is None or _fast_site(reactants, c_react, leaving, kind):
        return None
    fragment = _fragment_of(reactants, c_react.GetIdx())
    for idx in fragment:
        kept = reactants.GetAtomWithIdx(idx)
        if _HALIDE_RANK.get(kept.GetAtomicNum(), 0) <= _HALIDE_RANK[leaving.GetAtomicNum()] or kept.GetDegree() != 1:
            continue
        carbon = kept.GetNeighbors()[0]
        if carbon.GetIdx() == c_react.GetIdx() or _halide_kind(carbon, kept) != kind:
            continue
        if kind == "sp3" and _carbon_degree(carbon) > min(_carbon_degree(c_react), 2):
            continue  # a kept halide on a more substituted (or tertiary) carbon is no faster S_N2 site
        k_prod, c_kept = pmap.get(kept.GetAtomMapNum()), pmap.get(carbon.GetAtomMapNum())
        if (not kept.GetAtomMapNum() or k_prod is None or c_kept is None
                or product.GetBondBetweenAtoms(k_prod.GetIdx(), c_kept.GetIdx()) is None):
            continue  # the halide does not survive the step
        return leaving, carbon, kept, kind
    return None


def _ortho_para_activation(mol: Chem.Mol, carbon: Chem.Atom) -> bool | None:
    """Whether a pyridine-type ring nitrogen or an acceptor substituent (nitro, nitrile, carbonyl, sulfonyl, imine,
    CF3, vinylogous acceptor) sits ortho or para to aromatic ``carbon`` on its six-membered ring: ``True`` (an S_N_Ar
    site, and the faster Pd(0) insertion), ``False`` (none: a pyridine's 3-position, a pyrimidine's 5-position, a
    halobenzene meta to its acceptors), ``None`` (no verdict: a carbon of a five-membered ring or at a ring fusion, a
    ring with a ring carbonyl, a charged atom or an N-H nitrogen, where the pattern of activation is another, or only
    a weaker activation ortho or para: a fused azine, an attached heteroaryl)."""
    rings = [ring for ring in mol.GetRingInfo().AtomRings() if carbon.GetIdx() in ring]
    if len(rings) != 1 or len(rings[0]) != 6:
        return None
    ring = rings[0]
    members = set(ring)
    start = ring.index(carbon.GetIdx())
    activated = weak = False
    for pos, idx in enumerate(ring):
        atom = mol.GetAtomWithIdx(idx)
        if (atom.GetAtomicNum() not in (6, 7) or not atom.GetIsAromatic() or atom.GetFormalCharge() != 0
                or _ring_carbonyl(atom) or (atom.GetAtomicNum() == 7 and not _pyridine_type(atom))):
            return None
        if min((pos - start) % 6, (start - pos) % 6) not in (1, 3):
            continue
        if _pyridine_type(atom):
            activated = True
        for nb in atom.GetNeighbors():
            if nb.GetIdx() in members or nb.GetAtomicNum() in _ALL_HALOGENS:
                continue
            in_ring = mol.GetBondBetweenAtoms(idx, nb.GetIdx()).IsInRing()
            if _acceptor_substituent(nb, idx):
                activated = True
            elif nb.GetIsAromatic() and ((_pyridine_type(nb) or _electron_poor_fused(mol, nb)) if in_ring
                                         else _heteroaryl(mol, nb)):
                weak = True  # a fused azine (a quinoline's benzo ring) or an attached azine, azole
    return True if activated else (None if weak else False)


def _position_selectivity(reactants: Chem.Mol, product: Chem.Mol, pmap: dict[int, Chem.Atom], c_react: Chem.Atom,
                          c_prod: Chem.Atom, partner: Chem.Atom) -> tuple[Chem.Atom, Chem.Atom, Chem.Atom] | None:
    """(reacting halogen, kept carbon, kept halogen) when aromatic carbon ``c`` replaces a chloride, bromide or iodide
    in a new bond to a nitrogen, oxygen or sulfur of another molecule, nothing ortho or para activates it
    (:func:`_ortho_para_activation`), and its molecule keeps the same halogen through the step on an aromatic carbon
    that a ring nitrogen or an acceptor ortho or para does activate: S_N_Ar and Pd(0) insertion both take that one
    first (2-amino-2-imidazoline at C5 of 4,5,6-trichloropyrimidine substitutes C4).  ``None`` otherwise.  Unlike
    halogens are left out: a C-Br at an unactivated carbon may couple before an activated C-Cl, and a fluoride's own
    S_N_Ar rate lets it leave from a weaker position (published: 2-chloro-3-fluoropyridine takes an azole at C3)."""
    if not c_react.GetIsAromatic() or partner.GetAtomicNum() not in (7, 8, 16) \
            or _same_fragment(reactants, c_react, partner):
        return None
    leaving = next((nb for nb in _lost_neighbours(c_react, c_prod) if nb.GetAtomicNum() in _HALIDE_RANK), None)
    if leaving is None or _ortho_para_activation(reactants, c_react) is not False:
        return None
    for idx in _fragment_of(reactants, c_react.GetIdx()):
        kept = reactants.GetAtomWithIdx(idx)
        if kept.GetAtomicNum() != leaving.GetAtomicNum() or kept.GetDegree() != 1 or kept.GetIdx() == leaving.GetIdx():
            continue
        carbon = kept.GetNeighbors()[0]
        if carbon.GetAtomicNum() != 6 or not carbon.GetIsAromatic() or not _ortho_para_activation(reactants, carbon):
            continue
        k_prod, c_kept = pmap.get(kept.GetAtomMapNum()), pmap.get(carbon.GetAtomMapNum())
        if (not kept.GetAtomMapNum() or k_prod is None or c_kept is None
                or product.GetBondBetweenAtoms(k_prod.GetIdx(), c_kept.GetIdx()) is None):
            continue  # the halide does not survive the step
        return leaving, carbon, kept
    return None


def _activated_alkyl_halide(carbon: Chem.Atom, halogen: Chem.Atom) -> bool:
    """Whether ``carbon`` is an sp3 carbon whose halide a reduction or substitution takes first: benzylic, allylic,
    propargylic, alpha-carbonyl or alpha-heteroatom (:func:`_fast_site`'s sp3 case)."""
    return _halide_kind(carbon, halogen) == "sp3" and not _sp3_carbon_neighbours(carbon, halogen.GetIdx())


def _reduced_off(rmap: dict[int, Chem.Atom], pmap: dict[int, Chem.Atom], new: list[tuple[Chem.Atom, Chem.Atom]],
                 elements: frozenset[int] | set[int] = _HALOGENS) -> Iterator[tuple[int, Chem.Atom]]:
    """(map number of the carbon, the reactant atom it loses) for each carbon that trades a chlorine, bromine or
    iodine (or another of ``elements``) for a hydrogen in the step: it loses that one neighbour, gains a hydrogen and
    takes part in no new bond."""
    touched = {atom.GetAtomMapNum() for pair in new for atom in pair}
    for mc, c_prod in pmap.items():
        c_react = rmap.get(mc)
        if c_react is None or c_react.GetAtomicNum() != 6 or mc in touched:
            continue
        lost = _lost_neighbours(c_react, c_prod)
        if len(lost) == 1 and lost[0].GetAtomicNum() in elements and c_prod.GetTotalNumHs() > c_react.GetTotalNumHs():
            yield mc, lost[0]


def _hydrodehalogenations(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom],
                          pmap: dict[int, Chem.Atom], new: list[tuple[Chem.Atom, Chem.Atom]]
                          ) -> Iterator[tuple[int, Chem.Atom, Chem.Atom, Chem.Atom]]:
    """(map number of the carbon, its halogen, kept carbon, kept halogen) for each carbon that trades its halogen for
    a hydrogen (no new bond to it) while its molecule keeps a halide that a reduction removes first and the product
    keeps it: a heavier halogen on an aryl or vinyl carbon when the reduced one is aryl or vinyl too (an aryl chloride
    reduced beside an aryl bromide), or a halogen at least as heavy on an activated sp3 carbon (benzylic,
    alpha-carbonyl, alpha-heteroatom). A reduced halide that is itself activated is spared (zinc in acetic acid
    takes an alpha-halo ketone's first), and so is an unactivated alkyl halide kept beside an aryl one reduced (the
    order depends on the reductant)."""
    for mc, leaving in _reduced_off(rmap, pmap, new):
        c_react = rmap[mc]
        kind = _halide_kind(c_react, leaving)
        if kind is None or _activated_alkyl_halide(c_react, leaving):
            continue
        rank = _HALIDE_RANK[leaving.GetAtomicNum()]
        fragment = _fragment_of(reactants, c_react.GetIdx())
        for idx in fragment:
            kept = reactants.GetAtomWithIdx(idx)
            k_rank = _HALIDE_RANK.get(kept.GetAtomicNum(), 0)
            if not k_rank or kept.GetDegree() != 1 or kept.GetIdx() == leaving.GetIdx():
                continue
            carbon = kept.GetNeighbors()[0]
            faster = (k_rank >= rank and _activated_alkyl_halide(carbon, kept)) or \
                (k_rank > rank and kind == "sp2" and _halide_kind(carbon, kept) == "sp2")
            k_prod, c_kept = pmap.get(kept.GetAtomMapNum()), pmap.get(carbon.GetAtomMapNum())
            if (faster and kept.GetAtomMapNum() and k_prod is not None and c_kept is not None
                    and product.GetBondBetweenAtoms(k_prod.GetIdx(), c_kept.GetIdx()) is not None):
                yield mc, leaving, carbon, kept
                break


#: Atoms that an oxygen oxidises when it bonds to them without their losing a neighbour (S, Se, N, P).
_OXIDISABLE = frozenset({7, 15, 16, 34})
#: Elements of an oxygen source that cannot be an oxidant when it has no O-O bond (water, hydroxide, carbonate,
#: alcohols and acids with their counter-ions).
_NON_OXIDANT_ELEMENTS = frozenset({1, 3, 6, 8, 11, 19, 55})


def _peroxide_source(mol: Chem.Mol, oxygen: Chem.Atom) -> str | None:
    """The SMILES of the molecule that ``oxygen`` belongs to when ``oxygen`` is one end of an O-O bond of a peroxide
    without sulfur (H2O2, an alkyl hydroperoxide, a peracid, a dialkyl peroxide); ``None`` otherwise (not a peroxide
    oxygen, or a persulfate: the Elbs and Boyland-Sims oxidations)."""
    partners = [nb for nb in oxygen.GetNeighbors() if nb.GetAtomicNum() == 8]
    if not partners or any(nb.GetAtomicNum() == 16 for o in (oxygen, *partners) for nb in o.GetNeighbors()):
        return None
    return _fragment_smiles(mol, oxygen.GetIdx())


#: A free primary alkyl amine on a carbon that carries a hydrogen: not an amide, sulfonamide, aniline, hydrazine,
#: hydroxylamine or an amine on a quaternary carbon.
_FREE_PRIMARY_ALKYL_AMINE = Chem.MolFromSmarts("[NX3;H2;+0;!$(N-[!#6;!#1]);!$(N-C=[O,S,N]);!$(N-a)]-[CX4;!H0]")
#: A free N-methyl amine whose other carbon is an unbranched CH2 (sarcosine's NH): as unhindered as a primary amine.
#: A more substituted secondary amine is left out: USPTO-50K records 59 couplings of acids that keep one free (hindered
#: N-methyl amino acids of hemiasterlin analogues, piperidine acids condensed in polyphosphoric acid).
_FREE_N_METHYL_AMINE = Chem.MolFromSmarts(
    "[NX3;H1;+0;!$(N-[!#6;!#1]);!$(N-C=[O,S,N]);!$(N-a);$(N[CH3])]-[CH2X4]")


#: A free primary or secondary alkyl amine of any substitution (a ring N-H such as proline's or a tetrahydro-beta-
#: carboline's): not an amide, sulfonamide, aniline, hydrazine or hydroxylamine.
_FREE_ALKYL_AMINE_NH = Chem.MolFromSmarts("[NX3;H1,H2;+0;!a;!$(N-[!#6;!#1]);!$(N-C=[O,S,N]);!$(N-a)]-[CX4]")


def _keeps_free_acid(reactants: Chem.Mol, pmap: dict[int, Chem.Atom], atom: Chem.Atom) -> bool:
    """Whether the molecule of reactant ``atom`` has a carboxylic acid (:func:`_carboxylic_acid`) that is still one in
    the product."""
    for idx in _fragment_of(reactants, atom.GetIdx()):
        c = reactants.GetAtomWithIdx(idx)
        if _carboxylic_acid(c) and c.GetAtomMapNum() in pmap and _carboxylic_acid(pmap[c.GetAtomMapNum()]):
            return True
    return False


def _simple_alcohol(mol: Chem.Mol, oxygen: Chem.Atom) -> bool:
    """Whether the molecule of hydroxyl ``oxygen`` is an alcohol a Fischer esterification uses as its solvent or in
    excess: carbon, hydrogen, ether oxygens, halogens and nitro groups only, one O-H, no C=O (methanol, propanol,
    benzyl alcohol, 2-methoxyethanol, dodecanol, the 4-(trifluoromethyl)- and 3-nitrobenzyl alcohols that USPTO-50K
    esterifies 5-aminolevulinic acid with)."""
    atoms = [mol.GetAtomWithIdx(i) for i in _fragment_of(mol, oxygen.GetIdx())]
    if any(a.GetAtomicNum() not in (6, 8, *_ALL_HALOGENS) and not (
            a.GetAtomicNum() == 7 and a.GetFormalCharge() == 1 and sum(nb.GetAtomicNum() == 8 for nb in a.GetNeighbors())
            == 2) for a in atoms):
        return False
    if sum(a.GetAtomicNum() == 8 and a.GetTotalNumHs() > 0 for a in atoms) != 1:
        return False
    return not any(_carbonyl_carbon(a) for a in atoms)


def _unprotected_amino_acid(reactants: Chem.Mol, rmap: dict[int, Chem.Atom], pmap: dict[int, Chem.Atom],
                            new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int, int, str]]:
    """(acid carbon, nucleophile, kept amine nitrogen) map numbers and the :data:`MECHANISM_TEXT` key of each
    amidation whose free acid keeps a free primary alkyl amine, or an unhindered N-methyl amine
    (:data:`_FREE_N_METHYL_AMINE`), in its own molecule (``unprotected_amino_acid``); or keeps any free alkyl amine
    N-H (:data:`_FREE_ALKYL_AMINE_NH`, a ring N-H too) while the amine partner keeps a free carboxylic acid of its
    own: two unprotected amino acids coupled (``unprotected_amino_acids_coupled``); and of each esterification of such
    an acid (primary or N-methyl amine kept) by an alcohol that is not a Fischer esterification's solvent
    (:func:`_simple_alcohol`; ``unprotected_amino_acid_ester``: valaciclovir "from" free valine and acyclovir)."""
    hits: list[tuple[int, int, int, str]] = []
    unhindered = {m[0] for m in (*reactants.GetSubstructMatches(_FREE_PRIMARY_ALKYL_AMINE),
                                 *reactants.GetSubstructMatches(_FREE_N_METHYL_AMINE))}
    any_nh = {m[0] for m in reactants.GetSubstructMatches(_FREE_ALKYL_AMINE_NH)}
    if not unhindered and not any_nh:
        return hits
    for x, y in new:
        for n, c in ((x, y), (y, x)):
            if n.GetAtomicNum() not in (7, 8) or c.GetAtomicNum() != 6:
                continue
            mc, mn = c.GetAtomMapNum(), n.GetAtomMapNum()
            acid, nuc = rmap[mc], rmap[mn]
            ester = nuc.GetAtomicNum() == 8
            if ester and not _carboxylic_acid(acid):
                # the ester written with the acid's oxygen kept and the alcohol's carbon losing its hydroxyl
                hydroxyl = _lost_hydroxyl(acid, pmap[mc]) if not acid.GetIsAromatic() else None
                acyl = next((a for a in nuc.GetNeighbors() if _carboxylic_acid(a)), None)
                if hydroxyl is None or acyl is None:
                    continue
                mn = mc  # the alcohol's carbon
                acid, nuc, mc = acyl, hydroxyl, acyl.GetAtomMapNum()
            if not _carboxylic_acid(acid) or _same_fragment(reactants, acid, nuc):
                continue
            if ester and (not nuc.GetTotalNumHs() or any(a.GetIsAromatic() for a in nuc.GetNeighbors())
                          or _simple_alcohol(reactants, nuc)):
                continue  # a phenol, or a Fischer esterification in the alcohol as its solvent
            fragment = set(_fragment_of(reactants, acid.GetIdx()))
            partner_acid: bool | None = None
            for idx in sorted(unhindered | any_nh, key=lambda i: (i not in unhindered, i)):
                amine = reactants.GetAtomWithIdx(idx)
                ma = amine.GetAtomMapNum()
                if idx not in fragment or not ma or ma not in pmap or pmap[ma].GetTotalNumHs() != amine.GetTotalNumHs():
                    continue
                if idx not in unhindered:
                    if ester:
                        continue
                    if partner_acid is None:
                        partner_acid = _keeps_free_acid(reactants, pmap, nuc)
                    if not partner_acid:
                        continue
                hits.append((mc, mn, ma, "unprotected_amino_acid_ester" if ester else "unprotected_amino_acid"
                             if idx in unhindered else "unprotected_amino_acids_coupled"))
                break
    return hits


def _via_enol(carbon: Chem.Atom, partner: Chem.Atom, partner_prod: Chem.Atom) -> bool:
    """Whether C-H ``carbon``, bonding to ``partner``, is a ketone's or aldehyde's alpha-carbon in a step other than an
    alkylation by a halide or sulfonate at an sp3 ``partner``: its enol or enamine reacts in acid (a Mannich or aldol
    step, a Fischer indole synthesis), with no carbanion."""
    alkylation = (not partner.GetIsAromatic() and partner.GetHybridization() == Chem.HybridizationType.SP3
                  and _leaving_atom(partner, partner_prod) is not None)
    return not alkylation and any(_ketone_carbon(nb) or _aldehyde_carbon(nb) for nb in carbon.GetNeighbors()
                                  if nb.GetIdx() != partner.GetIdx())


def _own_halide_ring_closure(reactants: Chem.Mol, product: Chem.Mol, pmap: dict[int, Chem.Atom],
                             carbon: Chem.Atom) -> tuple[int, int, str] | None:
    """(map number of the halide's carbon, ring size, halide name) when the C-H carbon ``carbon``, made a carbanion for
    a bond to another molecule, has in its own molecule an sp3 carbon carrying a chloride, bromide or iodide two or
    four bonds away through sp3 carbons alone, and the product keeps that carbon-halogen bond: the carbanion closes
    the cyclopropane (3-exo-tet) or cyclopentane (5-exo-tet) on it first, as 4-chlorobutyronitrile gives cyclopropyl
    cyanide with base. ``None`` otherwise."""
    for idx in _fragment_of(reactants, carbon.GetIdx()):
        c = reactants.GetAtomWithIdx(idx)
        if idx == carbon.GetIdx() or c.GetAtomicNum() != 6 or c.GetIsAromatic() \
                or c.GetHybridization() != Chem.HybridizationType.SP3:
            continue
        halogen = next((nb for nb in c.GetNeighbors() if nb.GetAtomicNum() in _HALOGENS), None)
        if halogen is None or sum(nb.GetAtomicNum() in _ALL_HALOGENS for nb in c.GetNeighbors()) != 1:
            continue
        path = Chem.GetShortestPath(reactants, carbon.GetIdx(), idx)
        if len(path) not in (3, 5) or any(
                reactants.GetAtomWithIdx(i).GetAtomicNum() != 6 or reactants.GetAtomWithIdx(i).GetIsAromatic()
                or reactants.GetAtomWithIdx(i).GetHybridization() != Chem.HybridizationType.SP3 for i in path[1:-1]):
            continue
        mc, mx = c.GetAtomMapNum(), halogen.GetAtomMapNum()
        if not mc or not mx or mc not in pmap or mx not in pmap or \
                product.GetBondBetweenAtoms(pmap[mc].GetIdx(), pmap[mx].GetIdx()) is None:
            continue
        return mc, len(path), _HALIDE_NAMES[halogen.GetSymbol()]
    return None


def _acceptor_beta_carbon(atom: Chem.Atom) -> bool:
    """Whether non-aromatic carbon ``atom`` is the beta-carbon of an alkene conjugated to an acceptor: its C=C partner
    carries a C=O, C=N, C#N, S=O or nitro group (an acrylate's, enone's, acrylonitrile's, vinyl sulfone's or
    nitroalkene's terminal carbon)."""
    if atom.GetAtomicNum() != 6 or atom.GetIsAromatic():
        return False
    for bond in atom.GetBonds():
        alpha = bond.GetOtherAtom(atom)
        if bond.GetBondType() != Chem.BondType.DOUBLE or alpha.GetAtomicNum() != 6 or alpha.GetIsAromatic():
            continue
        if any(nb.GetIdx() != atom.GetIdx() and _double_to_heteroatom(nb, alpha.GetIdx())
               for nb in alpha.GetNeighbors()):
            return True
    return False


def _acyl_leaving(c_react: Chem.Atom, c_prod: Chem.Atom) -> Chem.Atom | None:
    """The halogen an acyl halide, chloroformate or carbamoyl halide carbon (C=O kept) loses in the step, or ``None``."""
    leaving = _leaving_atom(c_react, c_prod)
    if leaving is None or leaving.GetAtomicNum() not in _HALOGENS or c_react.GetIsAromatic():
        return None
    keeps_oxo = any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(c_react).GetAtomicNum() == 8
                    for b in c_react.GetBonds())
    return leaving if keeps_oxo else None


def _non_oxidant_source(mol: Chem.Mol, oxygen: Chem.Atom) -> str | None:
    """The SMILES of the molecule that ``oxygen`` belongs to when it cannot oxidise anything: C, H, O (and alkali
    counter-ions) only, no O-O bond; ``None`` otherwise (a peroxide, periodate, hypochlorite, nitrite, a metal
    oxide...)."""
    atoms = [mol.GetAtomWithIdx(i) for i in _fragment_of(mol, oxygen.GetIdx())]
    if any(a.GetAtomicNum() not in _NON_OXIDANT_ELEMENTS for a in atoms):
        return None
    if any(nb.GetAtomicNum() == 8 for a in atoms if a.GetAtomicNum() == 8 for nb in a.GetNeighbors()):
        return None  # a peroxide or peracid
    return _fragment_smiles(mol, oxygen.GetIdx())


#: Halogenated solvents that are written as a step's halogen source only by a record's mapping error: dichloromethane,
#: chloroform, 1,2-dichloroethane, dibromomethane (canonical SMILES).  Dichloromethane and dibromomethane give a CH2
#: (a methylenedioxy bridge) and chloroform a dichlorocarbene, each with their carbon; carbon tetrachloride and
#: tetrabromide are Appel reagents and are not listed.
_HALOGENATED_SOLVENTS = frozenset({"ClCCl", "ClC(Cl)Cl", "ClCCCl", "BrCBr"})


def _halogen_solvent(reactants: Chem.Mol, product: Chem.Mol, halogen: Chem.Atom) -> str | None:
    """The SMILES of the solvent molecule (:data:`_HALOGENATED_SOLVENTS`) that the reactant atom ``halogen`` belongs
    to when none of that molecule's carbons is in the product; ``None`` otherwise."""
    atoms = [reactants.GetAtomWithIdx(i) for i in _fragment_of(reactants, halogen.GetIdx())]
    if len(atoms) > 4 or any(a.GetAtomicNum() not in (6, 17, 35) for a in atoms):
        return None
    smiles = _fragment_smiles(reactants, halogen.GetIdx())
    if smiles not in _HALOGENATED_SOLVENTS:
        return None
    kept = {a.GetAtomMapNum() for a in product.GetAtoms() if a.GetAtomMapNum()}
    if any(a.GetAtomicNum() == 6 and a.GetAtomMapNum() in kept for a in atoms):
        return None  # the solvent's carbon is built in (a methylenedioxy bridge, a dichlorocarbene)
    return smiles


def _label(atom: Chem.Atom, leaving: Chem.Atom) -> str:
    group = leaving.GetSymbol() if leaving.GetAtomicNum() != 8 else "OSO2R"
    if _halogen_count(atom) >= 2:
        return f"dihalomethyl-type C-{group} at atom {atom.GetAtomMapNum()}"
    if atom.GetIsAromatic():
        kind = "aryl"
    elif _double_to_heteroatom(atom, leaving.GetIdx()):
        kind = "acyl"
    else:
        kind = "alkyl" if atom.GetHybridization() == Chem.HybridizationType.SP3 else "vinyl"
    return f"{kind} C-{group} at atom {atom.GetAtomMapNum()}"


def _aryl_heteroatom_pairs(new: list[tuple[Chem.Atom, Chem.Atom]],
                           rmap: dict[int, Chem.Atom]) -> list[tuple[int, int]]:
    """Map-number pairs (aromatic carbon, N/O/S) of the new bonds ``new`` (:func:`_new_bonds`) whose carbon was
    aromatic already (a ring built in the step, Skraup or Fischer, is not a substitution)."""
    out = []
    for x, y in new:
        for c, n in ((x, y), (y, x)):
            if (c.GetAtomicNum() == 6 and c.GetIsAromatic() and n.GetAtomicNum() in (7, 8, 16)
                    and rmap[c.GetAtomMapNum()].GetIsAromatic()):
                out.append((c.GetAtomMapNum(), n.GetAtomMapNum()))
    return out


def _snar_leaving_group(c_react: Chem.Atom, c_prod: Chem.Atom) -> Chem.Atom | None:
    """The fluorine or ether oxygen (alkoxy, aryloxy) that aromatic carbon ``c`` loses in the step: the leaving
    groups no Pd or Cu coupling takes, so only an activated ring lets them go (``None``: another group or none; a
    phenol's OH is not counted: the records map Mitsunobu ethers that way, and naphthols do take amines, Bucherer)."""
    for nb in _lost_neighbours(c_react, c_prod):
        if nb.GetAtomicNum() == 9:
            return nb
        if (nb.GetAtomicNum() == 8 and not nb.GetIsAromatic() and nb.GetFormalCharge() == 0 and nb.GetDegree() == 2
                and all(o.GetAtomicNum() == 6 for o in nb.GetNeighbors())
                and not any(_double_to_heteroatom(o, nb.GetIdx()) for o in nb.GetNeighbors())):
            return nb
    return None


_ACYL_KIND = {(7,): "an amide", (8,): "an ester", (7, 7): "a urea", (7, 8): "a carbamate", (8, 8): "a carbonate"}


#: Reagents that activate an amide-type carbonyl for an amine (imidoyl chloride, chloroiminium, thioamide, imidate).
_CARBONYL_ACTIVATORS = tuple(Chem.MolFromSmarts(sma) for sma in (
    "O=P(Cl)(Cl)Cl", "P(Cl)(Cl)(Cl)(Cl)Cl", "O=S(Cl)Cl", "O=C(Cl)C(=O)Cl", "ClC(Cl)=O", "ClC(Cl)(Cl)OC(=O)OC(Cl)(Cl)Cl",
    "O=S(=O)(OS(=O)(=O)C(F)(F)F)C(F)(F)F", "[#15]=[#16]", "[O+;X3]([#6])([#6])[#6]", "Cl[Ti](Cl)(Cl)Cl"))


def _amide_type_carbonyl(carbon: Chem.Atom) -> str | None:
    """A name ("a urea") when ``carbon`` is the C=O carbon of an amide, urea, carbamate, ester or
    carbonate (a carbonyl with one or two single-bonded N or O neighbours); ``None`` otherwise."""
    if carbon.GetAtomicNum() != 6 or carbon.GetIsAromatic():
        return None
    oxo, imine, hetero, hydroxy = None, None, [], False
    for bond in carbon.GetBonds():
        nb = bond.GetOtherAtom(carbon)
        if bond.GetBondType() == Chem.BondType.DOUBLE:
            if nb.GetAtomicNum() not in (7, 8) or oxo is not None or imine is not None:
                return None
            if nb.GetAtomicNum() == 8:
                oxo = nb
            else:
                imine = nb
        elif bond.GetBondType() == Chem.BondType.SINGLE and nb.GetAtomicNum() in (7, 8):
            hetero.append(nb.GetAtomicNum())
            hydroxy = hydroxy or (nb.GetAtomicNum() == 8 and (nb.GetTotalNumHs() > 0 or nb.GetFormalCharge() < 0))
    if imine is not None:  # C(OH)=N or C(O-)=N: an amide or lactam drawn as its imidic-acid (lactim) tautomer or anion
        if hydroxy and imine.GetFormalCharge() == 0:
            if hetero == [8]:
                return "a lactam drawn as its lactim" if carbon.IsInRing() else "an amide drawn as its imidic acid"
            if sorted(hetero) == [7, 8]:  # N-C(OH)=N: a urea drawn as its isourea tautomer (2-hydroxyimidazoline)
                return "a cyclic urea drawn as its lactim" if carbon.IsInRing() else "a urea drawn as its isourea"
        return None
    kind = _ACYL_KIND.get(tuple(sorted(hetero)))
    if kind == "an ester" and hydroxy:
        kind = "a carboxylic acid"
    return kind if oxo is not None else None


def _amide_condensations(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom],
                         pmap: dict[int, Chem.Atom], new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int, str]]:
    """(carbon map, nitrogen map, the carbonyl's name) for each new C-N bond that joins a nitrogen of one precursor to
    the amide-type carbonyl carbon (:func:`_amide_type_carbonyl`) of another, the carbon losing its C=O oxygen but no
    hydrogen count and carrying a C=N in the product (an amidine, guanidine, isourea or imidate forms), outside any
    ring of the product, when no precursor is an activator (``_CARBONYL_ACTIVATORS``).  A ring closure
    (benzimidazole, quinazolinone, oxadiazole) is a cyclodehydration that heat or acid drives, so it is left out,
    as are an amide formed from an ester or acid chloride (the C=O stays) and an amine added to a nitrile."""
    out: list[tuple[int, int, str]] = []
    if not any(x.GetAtomicNum() in (6, 7) and y.GetAtomicNum() in (6, 7) for x, y in new) \
            or any(reactants.HasSubstructMatch(patt) for patt in _CARBONYL_ACTIVATORS):
        return out  # no new C-N bond, or the step names its activator
    for x, y in new:
        for c, n in ((x, y), (y, x)):
            if c.GetAtomicNum() != 6 or n.GetAtomicNum() != 7:
                continue
            mc, mn = c.GetAtomMapNum(), n.GetAtomMapNum()
            c_react, n_react = rmap.get(mc), rmap.get(mn)
            if c_react is None or n_react is None:
                continue
            kind = _amide_type_carbonyl(c_react)
            if kind is None or _same_fragment(reactants, c_react, n_react):
                continue
            if any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(c).GetAtomicNum() == 8
                   for b in c.GetBonds()):
                continue  # the product carbon still carries a C=O: an acylation of the amine, not a condensation
            if any(b.GetBondType() == Chem.BondType.SINGLE and b.GetOtherAtom(c).GetAtomicNum() == 8
                   and (b.GetOtherAtom(c).GetTotalNumHs() or b.GetOtherAtom(c).GetFormalCharge() < 0)
                   for b in c.GetBonds()):
                continue  # C(OH)=N: an amide or hydroxamic acid drawn as its imidic-acid tautomer (an acylation)
            if c.GetTotalNumHs() != c_react.GetTotalNumHs():
                continue  # the carbon gains hydrogen: a reduction (an amide or ester to the amine), not a condensation
            if not any(b.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.AROMATIC)
                       and b.GetOtherAtom(c).GetAtomicNum() == 7 for b in c.GetBonds()):
                continue  # no C=N formed (a cyanamide's C#N, a single C-N): not an amidine, guanidine or imidate
            bond = product.GetBondBetweenAtoms(c.GetIdx(), n.GetIdx())
            if bond is None or bond.IsInRing():
                continue
            out.append((mc, mn, kind))
    return out


def _nh_amide_additions(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom],
                        new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int]]:
    """(carbonyl carbon map, nucleophilic carbon map) for each new C-C bond that joins a carbon of one precursor to the
    C=O carbon of an amide or lactam of another whose nitrogen carries a hydrogen (``_amide_type_carbonyl`` "an
    amide"), the carbon losing its C=O (a carbinolamine or an enamine forms), when no precursor is an activator
    (``_CARBONYL_ACTIVATORS``).  A base or an organometallic takes the N-H first, and the amidate is no electrophile;
    a tertiary amide (a Weinreb amide, an N-Boc lactam) is not matched."""
    out: list[tuple[int, int]] = []
    if any(reactants.HasSubstructMatch(patt) for patt in _CARBONYL_ACTIVATORS):
        return out
    for x, y in new:
        for c, nu in ((x, y), (y, x)):
            if c.GetAtomicNum() != 6 or nu.GetAtomicNum() != 6:
                continue
            c_react, nu_react = rmap.get(c.GetAtomMapNum()), rmap.get(nu.GetAtomMapNum())
            if c_react is None or nu_react is None or _amide_type_carbonyl(c_react) != "an amide":
                continue
            if not any(nb.GetAtomicNum() == 7 and nb.GetTotalNumHs() for nb in c_react.GetNeighbors()):
                continue  # a tertiary amide: organometallics add to it (a Weinreb ketone synthesis)
            if _same_fragment(reactants, c_react, nu_react):
                continue  # a ring closure onto the amide (a Camps or Madelung cyclisation): heat and base drive it
            if c.GetIsAromatic():
                continue  # a heteroaromatic ring built round the amide carbon (an oxazole): a cyclocondensation
            if any(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(c).GetAtomicNum() == 8
                   for b in c.GetBonds()):
                continue  # the C=O stays: the amide carbon was not attacked as a carbonyl
            out.append((c.GetAtomMapNum(), nu.GetAtomMapNum()))
    return out


def _acylated_nh(nitrogen: Chem.Atom) -> str | None:
    """What acyl group makes ``nitrogen`` an amide-type N-H ("an amide", "a carbamate", "a urea", "a sulfonamide"):
    a non-aromatic N with a hydrogen on a carbonyl (:func:`_amide_type_carbonyl`) or sulfonyl group; a formamide's
    nitrogen is not counted (formamide alkylates ketones in the Leuckart reaction); ``None`` otherwise."""
    if nitrogen.GetAtomicNum() != 7 or nitrogen.GetIsAromatic() or not nitrogen.GetTotalNumHs():
        return None
    for nb in nitrogen.GetNeighbors():
        if nb.GetAtomicNum() == 16 and sum(b.GetBondType() == Chem.BondType.DOUBLE for b in nb.GetBonds()) == 2:
            return "a sulfonamide"
        kind = _amide_type_carbonyl(nb)
        if kind in ("an amide", "a urea", "a carbamate"):
            return None if nb.GetTotalNumHs() else kind
    return None


def _ketone_carbon(carbon: Chem.Atom) -> bool:
    """Whether ``carbon`` is a ketone's C=O carbon: no hydrogen, and besides the oxygen two carbon (or boron)
    neighbours."""
    if carbon.GetAtomicNum() != 6 or carbon.GetIsAromatic() or carbon.GetTotalNumHs():
        return False
    oxo = [b.GetOtherAtomIdx(carbon.GetIdx()) for b in carbon.GetBonds()
           if b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(carbon).GetAtomicNum() == 8]
    if len(oxo) != 1:
        return False
    others = [nb.GetAtomicNum() for nb in carbon.GetNeighbors() if nb.GetIdx() != oxo[0]]
    return len(others) == 2 and all(z in (5, 6) for z in others)


def _amide_ketone_alkylations(reactants: Chem.Mol, rmap: dict[int, Chem.Atom],
                              new: list[tuple[Chem.Atom, Chem.Atom]]) -> Iterator[tuple[int, int, str, bool]]:
    """(nitrogen map, carbon map, the nitrogen's acyl group, whether the carbon was an aldehyde's) for each new C-N
    bond between an amide-type N-H (:func:`_acylated_nh`) of one precursor and a ketone's carbonyl carbon of another
    that ends as an sp3 carbon without its oxygen: a reductive amination by an amide, carbamate, urea or sulfonamide;
    and the same with an aldehyde's carbon when the nitrogen carries a second heavy atom besides its acyl group (a
    lactam, imide, N-substituted amide, carbamate, urea or sulfonamide: the 16 aldehyde reductive alkylations of
    amide-type N-H among the USPTO-50K reactions are all of an NH2, through its N-acyliminium ion).  A carbon that
    forms a second new bond in the step (formaldehyde in an N-acyl Pictet-Spengler or Mannich closure, an aldehyde
    bridging two nitrogens to an aminal ring) is not a reductive alkylation."""
    for x, y in new:
        for n, c in ((x, y), (y, x)):
            n_react, c_react = rmap.get(n.GetAtomMapNum()), rmap.get(c.GetAtomMapNum())
            if n_react is None or c_react is None:
                continue
            aldehyde = not _ketone_carbon(c_react)
            if aldehyde and not (_aldehyde_carbon(c_react) and n_react.GetTotalNumHs() == 1
                                 and sum(nb.GetAtomicNum() > 1 for nb in n_react.GetNeighbors()) == 2):
                continue
            if any(b.GetBondType() != Chem.BondType.SINGLE for b in c.GetBonds()) \
                    or any(nb.GetAtomicNum() == 8 for nb in c.GetNeighbors()):
                continue  # an enamide or a hemiaminal: a condensation, not a reductive alkylation
            if sum(c.GetAtomMapNum() in (a.GetAtomMapNum(), b.GetAtomMapNum()) for a, b in new) > 1:
                continue  # the carbon bridges two atoms (a Pictet-Spengler or Mannich closure, an aminal ring)
            kind = _acylated_nh(n_react)
            if kind is not None and not _same_fragment(reactants, n_react, c_react):
                yield n.GetAtomMapNum(), c.GetAtomMapNum(), kind, aldehyde


def _fragment_of(mol: Chem.Mol, idx: int) -> tuple[int, ...]:
    """The atom indices of the molecule (fragment) of ``mol`` that holds atom ``idx``."""
    return next(f for f in Chem.GetMolFrags(mol) if idx in f)


def _fragment_smiles(mol: Chem.Mol, idx: int) -> str:
    """The map-free SMILES of the molecule (fragment) of ``mol`` that holds atom ``idx``."""
    k = next(i for i, f in enumerate(Chem.GetMolFrags(mol)) if idx in f)
    return map_free_smiles(Chem.GetMolFrags(mol, asMols=True, sanitizeFrags=False)[k])


def _same_fragment(mol: Chem.Mol, a: Chem.Atom, b: Chem.Atom) -> bool:
    return b.GetIdx() in _fragment_of(mol, a.GetIdx())


def _pyridine_type(atom: Chem.Atom) -> bool:
    """An aromatic nitrogen that withdraws (pyridine-like: no hydrogen, two ring bonds, or a cation/N-oxide)."""
    return atom.GetAtomicNum() == 7 and atom.GetIsAromatic() and (
        atom.GetFormalCharge() > 0 or (atom.GetTotalNumHs() == 0 and atom.GetDegree() == 2))


def _vinylogous_acceptor(atom: Chem.Atom, skip: int) -> bool:
    """Whether ``atom`` carries a C=C whose far carbon holds a C=O, C#N or S(=O) (a vinylogous acceptor), the bond
    to ``skip`` aside."""
    for bond in atom.GetBonds():
        other = bond.GetOtherAtom(atom)
        if other.GetIdx() == skip or bond.GetBondType() != Chem.BondType.DOUBLE or other.GetAtomicNum() != 6:
            continue
        if any(_double_to_heteroatom(nb, other.GetIdx())
               for nb in other.GetNeighbors() if nb.GetIdx() != atom.GetIdx()):
            return True
    return False


def _ring_holds(mol: Chem.Mol, atom: Chem.Atom, test: Any) -> bool:
    """Whether some ring through ``atom`` holds an atom that passes ``test``."""
    return any(atom.GetIdx() in ring and any(test(mol.GetAtomWithIdx(i)) for i in ring)
               for ring in mol.GetRingInfo().AtomRings())


def _ring_carbonyl(atom: Chem.Atom) -> bool:
    return _double_to_heteroatom(atom, -1)  # a pyridone's, quinolone's or coumarin's C=O (or a ring C=N)


def _electron_poor_fused(mol: Chem.Mol, atom: Chem.Atom) -> bool:
    """A fused ring through ``atom`` with a pyridine-type nitrogen or a ring carbonyl (quinoline, quinazoline,
    quinolone)."""
    return _ring_holds(mol, atom, lambda a: _pyridine_type(a) or _ring_carbonyl(a))


def _heteroaryl(mol: Chem.Mol, atom: Chem.Atom) -> bool:
    """An attached aromatic ring with a nitrogen or a ring carbonyl (an azine, azole, pyridone)."""
    return _ring_holds(mol, atom, lambda a: a.GetAtomicNum() == 7 or _ring_carbonyl(a))


def _acceptor_substituent(nb: Chem.Atom, ring_atom: int) -> bool:
    """Whether ``nb``, a substituent of ring atom ``ring_atom``, withdraws electrons from the ring: a nitro group, a
    C=O, C#N, S(=O) or C=N group, a CF3, or a vinylogous acceptor (a cinnamate, chromene ester, enone on the ring)."""
    return ((nb.GetAtomicNum() == 7 and nb.GetFormalCharge() == 1) or _double_to_heteroatom(nb, ring_atom)
            or (nb.GetAtomicNum() == 6 and sum(f.GetAtomicNum() == 9 for f in nb.GetNeighbors()) == 3)
            or (not nb.GetIsAromatic() and _vinylogous_acceptor(nb, ring_atom)))


def _snar_ring(mol: Chem.Mol, carbon: Chem.Atom) -> tuple[bool, bool, int, bool]:
    """What the aromatic rings through ``carbon`` offer a nucleophilic aromatic substitution there:
    (activated ortho/para, activated anywhere, other halogens, pi donor).

    Activating: a pyridine-type ring nitrogen (any position counts as ortho/para too), a fused ring holding one or a
    ring carbonyl (quinoline, quinazoline, quinolone), or a nitro, nitrile, carbonyl, sulfonyl, imine, CF3,
    vinylogous acceptor or heteroaryl substituent; ortho or para means on a six-membered ring, any atom of another.
    Halogens: the other F, Cl, Br on the ring. Donor: an ether or hydroxy oxygen, an amine nitrogen, or a fused
    pyrrole-, furan- or thiophene-type ring atom, which make the ring electron-rich."""
    para, anywhere, halogens, donor = False, False, 0, False
    for ring in mol.GetRingInfo().AtomRings():
        if carbon.GetIdx() not in ring:
            continue
        members = set(ring)
        start = ring.index(carbon.GetIdx())
        for pos, idx in enumerate(ring):
            atom = mol.GetAtomWithIdx(idx)
            if _pyridine_type(atom):
                para = anywhere = True
            dist = min((pos - start) % len(ring), (start - pos) % len(ring))
            conjugated = len(ring) != 6 or dist in (1, 3)
            for nb in atom.GetNeighbors():
                if nb.GetIdx() in members:
                    continue
                acceptor = False
                if nb.GetAtomicNum() in (9, 17, 35):
                    halogens += idx != carbon.GetIdx()
                elif _acceptor_substituent(nb, idx):
                    acceptor = True
                elif nb.GetIsAromatic():
                    if not mol.GetBondBetweenAtoms(idx, nb.GetIdx()).IsInRing():
                        acceptor = _heteroaryl(mol, nb)  # an attached azine, azole, pyridone
                    elif _pyridine_type(nb) or _electron_poor_fused(mol, nb):
                        acceptor = True  # quinoline, quinazoline, quinolone
                    elif nb.GetAtomicNum() in (7, 8, 16):
                        donor = True  # indole, benzofuran, benzothiophene: the fused five-membered ring donates
                elif nb.GetAtomicNum() == 8 and not any(_double_to_heteroatom(o, nb.GetIdx())
                                                        for o in nb.GetNeighbors()):
                    donor = donor or idx != carbon.GetIdx()  # an ether or hydroxy oxygen (not an ester's)
                elif nb.GetAtomicNum() == 7 and not any(_double_to_heteroatom(o, nb.GetIdx()) or o.GetIsAromatic()
                                                        for o in nb.GetNeighbors() if o.GetIdx() != idx):
                    donor = True  # an amine nitrogen (not an amide, not an N-aryl azole)
                if acceptor:
                    anywhere = True
                    para = para or conjugated
    return para, anywhere, halogens, donor


def _mirror_differs(smiles: str) -> bool:
    """Whether the molecule of canonical ``smiles`` is chiral: its mirror image (every tetrahedral tag inverted)
    is another molecule.  A SMILES without ``@`` is not; an unreadable mirror counts as not chiral (no verdict)."""
    if "@" not in smiles:
        return False
    mirror = smiles.replace("@@", "\0").replace("@", "@@").replace("\0", "@")
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(mirror)
    return mol is not None and Chem.MolToSmiles(mol) != smiles


def _acceptor_kind(carbon: Chem.Atom, nb: Chem.Atom) -> str | None:
    """What neighbour ``nb`` of sp3 ``carbon`` is when it withdraws electrons from it: ``"carbonyl"`` (a C=O, C=N or
    C=S carbon: a ketone, ester, acid, amide), ``"nitrile"``, ``"sulfonyl"`` or ``"nitro"``; else ``None``."""
    z = nb.GetAtomicNum()
    if z == 6 and any(b.GetBondType() == Chem.BondType.TRIPLE and b.GetOtherAtom(nb).GetAtomicNum() == 7
                      for b in nb.GetBonds()):
        return "nitrile"
    if z == 6 and _double_to_heteroatom(nb, carbon.GetIdx()):
        return "carbonyl"
    if z == 16 and sum(b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(nb).GetAtomicNum() == 8
                       for b in nb.GetBonds()) >= 2:
        return "sulfonyl"
    if z == 7 and nb.GetFormalCharge() > 0 and sum(m.GetAtomicNum() == 8 for m in nb.GetNeighbors()) >= 2:
        return "nitro"
    return None


def _benzene_alkylations(reactants: Chem.Mol, new: list[tuple[Chem.Atom, Chem.Atom]], rmap: dict[int, Chem.Atom]
                         ) -> Iterator[tuple[Chem.Atom, Chem.Atom, Chem.Atom, tuple[int, ...], list[Chem.Atom]]]:
    """(ring carbon's product and reactant atoms, electrophile's reactant atom, the ring, its other neighbours) for
    each new bond (:func:`_arene_ch_substitutions`) from a C-H of a benzene-type ring (a six-carbon aromatic ring,
    fused or not) of one precursor to an uncharged sp3 carbon of another that loses a halide or sulfonate: the
    electrophile of a Friedel-Crafts alkylation, for the rules that judge its cation."""
    for c, e, c_react, e_react in _arene_ch_substitutions(reactants, new, rmap):
        if e.GetAtomicNum() != 6 or e.GetIsAromatic():
            continue
        ring = _six_ring(reactants, c_react, carbocyclic=True)
        if ring is None or e_react.GetHybridization() != Chem.HybridizationType.SP3 or e_react.GetFormalCharge():
            continue  # a heteroaromatic ring, or no sp3 electrophile
        leaving = _leaving_atom(e_react, e)
        if leaving is not None:
            yield c, c_react, e_react, ring, [n for n in e_react.GetNeighbors() if n.GetIdx() != leaving.GetIdx()]


def _electron_poor_alkylations(reactants: Chem.Mol, new: list[tuple[Chem.Atom, Chem.Atom]],
                               rmap: dict[int, Chem.Atom]) -> list[tuple[int, int, str]]:
    """(ring carbon, electrophile carbon, acceptor) map numbers and kind of each Friedel-Crafts alkylation
    (:func:`_benzene_alkylations`) whose carbon sits next to a carbonyl, nitrile, sulfonyl or nitro group, with no
    aryl, vinyl or heteroatom (besides the leaving group) on it to stabilise a cation: a carbocation that the
    acceptor destabilises. A ring carrying a nitro group is spared: there the carbon is the carbanion of a vicarious
    nucleophilic substitution (chloromethyl phenyl sulfone on a nitroarene)."""
    out = []
    for c, _c_react, e_react, ring, others in _benzene_alkylations(reactants, new, rmap):
        if any(_acceptor_kind(reactants.GetAtomWithIdx(i), nb) == "nitro"
               for i in ring for nb in reactants.GetAtomWithIdx(i).GetNeighbors()):
            continue  # a nitroarene: the carbanion's vicarious nucleophilic substitution, not a Friedel-Crafts
        kinds = [_acceptor_kind(e_react, n) for n in others]
        if not any(kinds) or any(k is None and (n.GetAtomicNum() != 6 or n.GetIsAromatic() or any(
                b.GetBondType() == Chem.BondType.DOUBLE for b in n.GetBonds()))
                for n, k in zip(others, kinds, strict=True)):
            continue  # no acceptor, or a heteroatom, aryl or vinyl group stabilises the cation
        out.append((c.GetAtomMapNum(), e_react.GetAtomMapNum(), next(k for k in kinds if k)))
    return out


def _metalation_directed(carbon: Chem.Atom) -> bool:
    """Whether aromatic C-H ``carbon`` sits next to a ring carbon that carries a group directing an ortho-metalation
    (an ether or other O, F, N or S substituent; a carbonyl or imine carbon such as an amide's or an oxazoline's; a
    CH2 bonded to nitrogen): an alkyl halide may have met the aryllithium there, an SN2 reaction, not a
    Friedel-Crafts cation (veratrole lithiated at C3 and alkylated by 1,6-dibromohexane)."""
    for ring_nb, sub in _ortho_substituents(carbon):
        z = sub.GetAtomicNum()
        if z in (7, 8, 9, 16):
            return True
        if z == 6 and (_double_to_heteroatom(sub, ring_nb.GetIdx()) or
                       any(n.GetAtomicNum() == 7 for n in sub.GetNeighbors())):
            return True
    return False


def _ortho_substituents(carbon: Chem.Atom) -> Iterator[tuple[Chem.Atom, Chem.Atom]]:
    """(ring neighbour, its substituent) for each non-aromatic atom on an aromatic neighbour of ring atom ``carbon``
    (the groups ortho to ``carbon``)."""
    for ring_nb in carbon.GetNeighbors():
        if not ring_nb.GetIsAromatic():
            continue
        for sub in ring_nb.GetNeighbors():
            if not sub.GetIsAromatic() and sub.GetIdx() != carbon.GetIdx():
                yield ring_nb, sub


def _rearranging_alkylations(reactants: Chem.Mol, new: list[tuple[Chem.Atom, Chem.Atom]], rmap: dict[int, Chem.Atom]
                             ) -> list[tuple[int, int, int]]:
    """(ring carbon, primary carbon, its neighbour) map numbers of each Friedel-Crafts alkylation
    (:func:`_benzene_alkylations`) by a primary carbon (a CH2 with one carbon neighbour and nothing else besides the
    leaving group) when that neighbour is an sp3 carbon with a second carbon neighbour, or with a hydrogen and an O,
    N or S neighbour: the primary cation rearranges by a 1,2-hydride or alkyl shift to the secondary, tertiary or
    heteroatom-stabilised one before it reaches the ring (1-chloropropane and benzene give cumene, isobutyl bromide
    tert-butylbenzene, neopentyl chloride tert-pentylbenzene; 2-bromoethylamine's cation becomes an iminium ion,
    2-methoxyethyl bromide's an oxocarbenium ion). A methyl or ethyl halide, a benzylic, allylic or alpha-heteroatom
    carbon, a ring closure (:func:`_arene_ch_substitutions`) and a C-H next to a group that directs an
    ortho-metalation (:func:`_metalation_directed`: the aryllithium's SN2 reaction) are spared."""
    out = []
    for c, c_react, e_react, _ring, others in _benzene_alkylations(reactants, new, rmap):
        if e_react.GetTotalNumHs() != 2 or len(others) != 1 or _metalation_directed(c_react):
            continue
        beta = others[0]
        if beta.GetAtomicNum() != 6 or beta.GetIsAromatic() or beta.GetFormalCharge() \
                or beta.GetHybridization() != Chem.HybridizationType.SP3:
            continue  # a benzylic, allylic, propargylic or alpha-heteroatom carbon: a stabilised cation
        if sum(n.GetAtomicNum() == 6 for n in beta.GetNeighbors()) < 2 and not (
                beta.GetTotalNumHs() and any(n.GetAtomicNum() in (7, 8, 16) for n in beta.GetNeighbors())):
            continue  # an ethyl halide, or no second carbon nor H beside O, N or S: no more stable cation to shift to
        out.append((c.GetAtomMapNum(), e_react.GetAtomMapNum(), beta.GetAtomMapNum()))
    return out


#: A free aryl amine: an NH2, or an NH bonded to an sp3 carbon, on an aromatic carbon (no acyl, sulfonyl, imine,
#: cyano or heteroatom partner; a diaryl amine's N-H is not matched).
_FREE_ARYL_AMINE = Chem.MolFromSmarts("[NX3;+0;!a;H2,$([NH1]-[CX4]);!$(N-[#6]=,#[!#6]);!$(N-[!#6;!#1])]-[c,n]")
_BENZYLIC_HALOGENATION_WHY = {
    "aryl amine": "N-bromo- and N-chlorosuccinimide and the halogens substitute the ring of a free aniline or "
                  "aminoazine ortho or para to the amino group (an electrophilic substitution, fast at room "
                  "temperature and in the dark) far faster than the radical chain takes a benzylic hydrogen "
                  "(2-amino-5-methylpyridine and NBS give 2-amino-3-bromo-5-methylpyridine)",
    "alkyl amine": "NBS, NCS and the halogens N-halogenate a free alkyl amine (and oxidise it to the imine) before "
                   "the radical chain takes a benzylic hydrogen, and the amine would alkylate the benzylic halide "
                   "the step makes",
    "N-H pyrrole or indole ring": "N-bromo- and N-chlorosuccinimide and the halogens substitute a free ring C-H of "
                                  "an N-H pyrrole or indole (C3, or C2 of a 3-substituted indole: an electrophilic "
                                  "substitution, fast at room temperature and in the dark) far faster than the "
                                  "radical chain takes a benzylic hydrogen; an N-Boc or N-sulfonyl ring, which the "
                                  "group deactivates, is brominated at its benzylic carbon",
}

#: An N-H pyrrole-type ring nitrogen (pyrrole, indole, azaindole's five-membered ring) whose five-membered aromatic
#: ring holds carbons only besides it (not an azole with a second heteroatom): :func:`_free_pyrrole_ring` checks that
#: a ring carbon keeps a hydrogen.
_NH_PYRROLE = Chem.MolFromSmarts("[nX3;H1;+0;r5]")


def _free_pyrrole_ring(mol: Chem.Mol, nitrogen: Chem.Atom) -> bool:
    """Whether the N-H ``nitrogen``'s five-membered aromatic ring is a pyrrole ring (carbons besides the nitrogen) with
    a ring carbon that carries a hydrogen (the site NBS takes)."""
    for ring in mol.GetRingInfo().AtomRings():
        if len(ring) != 5 or nitrogen.GetIdx() not in ring:
            continue
        members = [mol.GetAtomWithIdx(i) for i in ring if i != nitrogen.GetIdx()]
        if all(a.GetAtomicNum() == 6 and a.GetIsAromatic() for a in members) and any(
                a.GetTotalNumHs() for a in members):
            return True
    return False


def _amine_ring_open(mol: Chem.Mol, ring_atom: Chem.Atom) -> bool:
    """Whether a ring that holds ``ring_atom`` (an amine's aromatic carbon) has an aromatic C-H ortho or para to it
    (six-membered ring), or any aromatic C-H (five-membered ring): a site an electrophilic halogenation takes."""
    idx = ring_atom.GetIdx()
    for ring in mol.GetRingInfo().AtomRings():
        if idx not in ring or not all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring):
            continue
        pos = ring.index(idx)
        for k, i in enumerate(ring):
            atom = mol.GetAtomWithIdx(i)
            if k != pos and (len(ring) != 6 or _ortho_para(pos, k)) and atom.GetAtomicNum() == 6 \
                    and atom.GetTotalNumHs():
                return True
    return False


def _benzylic_halogenations(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom],
                            pmap: dict[int, Chem.Atom], new: list[tuple[Chem.Atom, Chem.Atom]]
                            ) -> list[tuple[int, int, int, str]]:
    """(benzylic carbon, halogen, amine nitrogen map numbers, kind) of each new bond from a chlorine, bromine or
    iodine of one precursor to a benzylic sp3 carbon of another that loses a hydrogen and had no heteroatom or
    halogen (a C-H halogenation, not a substitution), while the carbon's molecule keeps a free amine the
    halogenating agent attacks first: an aryl amine (:data:`_FREE_ARYL_AMINE`) whose ring has an open ortho or para
    carbon (:func:`_amine_ring_open`), or an alkyl amine (``self_reactive``'s :data:`_ALKYL_AMINE`); kind ``aryl
    amine`` or ``alkyl amine``. The amine keeps its hydrogens in the product (it is not the step's other reacting
    group)."""
    out: list[tuple[int, int, int, str]] = []
    for x, y in new:
        for c, h in ((x, y), (y, x)):
            if c.GetAtomicNum() != 6 or h.GetAtomicNum() not in _HALOGENS:
                continue
            c_react, h_react = rmap[c.GetAtomMapNum()], rmap[h.GetAtomMapNum()]
            if c_react.GetIsAromatic() or c_react.GetHybridization() != Chem.HybridizationType.SP3 \
                    or c_react.GetTotalNumHs() <= c.GetTotalNumHs() \
                    or not any(nb.GetIsAromatic() for nb in c_react.GetNeighbors()) \
                    or any(nb.GetAtomicNum() != 6 for nb in c_react.GetNeighbors()) \
                    or _same_fragment(reactants, c_react, h_react):
                continue
            hit = _kept_free_amine(reactants, set(_fragment_of(reactants, c_react.GetIdx())), pmap)
            if hit is not None:
                out.append((c.GetAtomMapNum(), h.GetAtomMapNum(), *hit))
    return out


def _kept_free_amine(reactants: Chem.Mol, fragment: set[int], pmap: dict[int, Chem.Atom]) -> tuple[int, str] | None:
    """(map number, kind) of the first free amine among the atoms ``fragment`` of ``reactants`` that the product keeps
    with all its hydrogens (``pmap``: the product's atoms by map number): an aryl amine whose ring has an open ortho
    or para carbon (kind ``aryl amine``), else an alkyl amine (``alkyl amine``), else the nitrogen of an N-H pyrrole
    or indole ring with a free ring C-H (``N-H pyrrole or indole ring``, :func:`_free_pyrrole_ring`); ``None`` when
    there is none."""
    for pattern, kind in ((_FREE_ARYL_AMINE, "aryl amine"), (_ALKYL_AMINE, "alkyl amine"),
                          (_NH_PYRROLE, "N-H pyrrole or indole ring")):
        for match in reactants.GetSubstructMatches(pattern):
            amine = reactants.GetAtomWithIdx(match[0])
            kept = pmap.get(amine.GetAtomMapNum())
            if match[0] not in fragment or kept is None or kept.GetTotalNumHs() != amine.GetTotalNumHs():
                continue
            if kind == "alkyl amine" or (kind == "aryl amine" and _amine_ring_open(
                    reactants, reactants.GetAtomWithIdx(match[1]))) or (
                    kind != "aryl amine" and _free_pyrrole_ring(reactants, amine)):
                return amine.GetAtomMapNum(), kind
    return None


def _fast_snar_site(mol: Chem.Mol, carbon: Chem.Atom) -> bool:
    """Whether aromatic ``carbon`` is a fast S_N_Ar site: on a six-membered aromatic ring with a nitro group or a
    pyridine-type ring nitrogen ortho or para to it, or with two acceptor substituents (:func:`_acceptor_substituent`)
    there. One carbonyl, nitrile or sulfonyl group alone (4-fluorobenzophenone) needs hours at 100-150 C."""
    for ring in mol.GetRingInfo().AtomRings():
        if carbon.GetIdx() not in ring or len(ring) != 6:
            continue
        start, acceptors = ring.index(carbon.GetIdx()), 0
        for pos, idx in enumerate(ring):
            if min((pos - start) % 6, (start - pos) % 6) not in (1, 3):
                continue
            atom = mol.GetAtomWithIdx(idx)
            if _pyridine_type(atom):
                return True
            for nb in atom.GetNeighbors():
                if nb.GetIdx() in ring or not _acceptor_substituent(nb, idx):
                    continue
                if nb.GetAtomicNum() == 7 and nb.GetFormalCharge() == 1 and \
                        sum(o.GetAtomicNum() == 8 for o in nb.GetNeighbors()) >= 2:
                    return True  # a nitro group
                acceptors += 1
        if acceptors >= 2:
            return True
    return False


def _mustard_nucleophiles(reactants: Chem.Mol, pmap: dict[int, Chem.Atom], rmap: dict[int, Chem.Atom],
                          new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int, int]]:
    """(nitrogen, partner carbon, kept halogen) map numbers of each new bond from the nitrogen of a free secondary
    2-haloethylamine (``self_reactive``'s :data:`_BETA_HALOAMINE` with one N-H and the halogen on a CH2: a rigid
    bicyclic amine with a tertiary beta-chloride, a USPTO-50K record, cannot close the aziridinium) to a carbon of
    another precursor that is no carbonyl, imine, nitrile or heterocumulene carbon (an arylation, an alkylation, a
    conjugate addition; an acylation of the salt in the cold and a reductive amination are not counted), while the
    product keeps the amine's carbon-halogen bond.  A primary 2-haloethylamine counts only when it arylates an
    aromatic carbon that is no fast S_N_Ar site (:func:`_fast_snar_site`): a Buchwald-Hartwig or Ullmann coupling, or
    an S_N_Ar that one carbonyl or nitrile activates, hours with a base at 80-150 C, where the free base closes its
    aziridine (the Wenker and Gabriel aziridine syntheses); it closes that aziridine slowly enough for a fast S_N_Ar
    (an o-nitroaryl fluoride: a published PaRoutes step) and is not judged in an alkylation."""
    halides: dict[int, list[int]] = {}
    primary: set[int] = set()
    for n_idx, _c1, c2_idx, x_idx in reactants.GetSubstructMatches(_BETA_HALOAMINE):
        # an amine with a 2-haloethyl arm (CH2X), as in the mustards: secondary, or primary (judged below)
        n_hs = reactants.GetAtomWithIdx(n_idx).GetTotalNumHs()
        if reactants.GetAtomWithIdx(c2_idx).GetTotalNumHs() == 2 and n_hs in (1, 2):
            halides.setdefault(n_idx, []).append(x_idx)
            if n_hs == 2:
                primary.add(n_idx)
    out: list[tuple[int, int, int]] = []
    if not halides:
        return out
    for x, y in new:
        for n, c in ((x, y), (y, x)):
            if n.GetAtomicNum() != 7 or c.GetAtomicNum() != 6:
                continue
            n_react, c_react = rmap[n.GetAtomMapNum()], rmap[c.GetAtomMapNum()]
            if n_react.GetIdx() not in halides or _same_fragment(reactants, n_react, c_react) \
                    or _double_to_heteroatom(c_react, -1):
                continue
            if n_react.GetIdx() in primary and (not c_react.GetIsAromatic() or _fast_snar_site(reactants, c_react)):
                continue  # a primary one: judged only where the arylation is slow (a metal-catalysed coupling)
            for x_idx in halides[n_react.GetIdx()]:
                halogen = reactants.GetAtomWithIdx(x_idx)
                kept = pmap.get(halogen.GetAtomMapNum()) if halogen.GetAtomMapNum() else None
                if kept is not None and kept.GetAtomicNum() == halogen.GetAtomicNum():
                    out.append((n.GetAtomMapNum(), c.GetAtomMapNum(), halogen.GetAtomMapNum()))
                    break
    return out


#: Metals whose carbon bond an organometallic reagent spends in the step that uses it (organolithium, -sodium,
#: -potassium, Grignard, organozinc, cuprate, organoaluminium): none survives another reaction.
_SPENT_METALS = frozenset({3, 11, 19, 12, 30, 29, 13})


def _carried_organometallics(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom]
                             ) -> list[tuple[int, int]]:
    """(carbon, metal) map numbers of each carbon-metal bond (:data:`_SPENT_METALS`) of the product that a precursor
    already holds between the same two atoms: an organometallic carried through a step that makes its bonds
    elsewhere (the step that makes or spends the bond, a transmetalation included, changes it)."""
    out: list[tuple[int, int]] = []
    for metal in product.GetAtoms():
        if metal.GetAtomicNum() not in _SPENT_METALS or metal.GetAtomMapNum() not in rmap:
            continue
        r_metal = rmap[metal.GetAtomMapNum()]
        for carbon in metal.GetNeighbors():
            r_carbon = rmap.get(carbon.GetAtomMapNum()) if carbon.GetAtomMapNum() else None
            if carbon.GetAtomicNum() == 6 and r_carbon is not None and r_metal.GetAtomicNum() == metal.GetAtomicNum() \
                    and reactants.GetBondBetweenAtoms(r_carbon.GetIdx(), r_metal.GetIdx()) is not None:
                out.append((carbon.GetAtomMapNum(), metal.GetAtomMapNum()))
    return out


def _unsourced_centres(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom]) -> list[int]:
    """Map numbers of the product's stereocentres whose precursor atom has no tetrahedral tag, when the product is
    chiral and no precursor is (else empty)."""
    if not any(a.GetChiralTag() in _CW_CCW for a in product.GetAtoms()):
        return []
    if not _mirror_differs(map_free_smiles(product)):
        return []
    if any(_mirror_differs(map_free_smiles(frag)) for frag in Chem.GetMolFrags(reactants, asMols=True)):
        return []
    # the product's true stereocentres: tags RDKit keeps once the map numbers no longer tell atoms apart
    plain = strip_atom_maps(product)
    Chem.AssignStereochemistry(plain, cleanIt=True, force=True)
    out = []
    for atom, bare in zip(product.GetAtoms(), plain.GetAtoms(), strict=True):
        if bare.GetChiralTag() not in _CW_CCW:
            continue
        source = rmap.get(atom.GetAtomMapNum())
        if source is not None and source.GetChiralTag() not in _CW_CCW:
            out.append(atom.GetAtomMapNum())
    return out


def _unsourced_alkene_geometry(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom]) -> list[int]:
    """Map numbers of the first tetrasubstituted open-chain C=C of the product whose E/Z geometry is set (a real
    stereo bond once the map numbers no longer tell its substituents apart) and that the step forms: its two carbons
    are no double or triple bond in the precursors (a ketone olefination such as a McMurry or Wittig coupling, or a
    dehydration). Empty when there is none."""
    plain = None
    for bond in product.GetBonds():
        if bond.GetBondType() != Chem.BondType.DOUBLE or bond.IsInRing() \
                or bond.GetStereo() == Chem.BondStereo.STEREONONE:
            continue
        a, b = bond.GetBeginAtom(), bond.GetEndAtom()
        if a.GetSymbol() != "C" or b.GetSymbol() != "C" or any(x.GetDegree() != 3 for x in (a, b)):
            continue
        ra, rb = rmap.get(a.GetAtomMapNum()), rmap.get(b.GetAtomMapNum())
        if ra is None or rb is None or not a.GetAtomMapNum() or not b.GetAtomMapNum():
            continue
        old = reactants.GetBondBetweenAtoms(ra.GetIdx(), rb.GetIdx())
        if old is not None and old.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE):
            continue  # the precursor brings the double bond (a coupling of a vinyl partner) or a triple bond
        if plain is None:
            plain = strip_atom_maps(product)
            Chem.AssignStereochemistry(plain, cleanIt=True, force=True)
        if plain.GetBondWithIdx(bond.GetIdx()).GetStereo() != Chem.BondStereo.STEREONONE:
            return [a.GetAtomMapNum(), b.GetAtomMapNum()]
    return []


#: The smallest rings that hold each unit as an isolable compound: cyclooctyne and 1,2-cyclononadiene. A smaller
#: ring makes a transient species (cyclohexyne, 1,2-cyclohexadiene), not a starting material or an intermediate one
#: can isolate. (RDKit reads no cis/trans on a double bond in a ring under 8 atoms, so a trans-cycloheptene cannot
#: be written, and is not checked.)
MIN_RING = {"triple bond": 8, "allene": 9, "trans double bond": 8}

#: Atoms written outside brackets (a ring-closure digit follows an atom; digits inside brackets are counts and maps).
_BRACKETS = re.compile(r"\[[^\]]*\]")


def _ring_closures(smiles: str) -> int:
    """How many ring-closure digits ``smiles`` holds (each ring two): bracket contents are not counted."""
    return sum(ch.isdigit() for ch in _BRACKETS.sub("", smiles))


#: A non-aromatic double bond from an atom with three ring bonds to one with two (needs ring information).
_BRIDGEHEAD_DOUBLE_BOND = Chem.MolFromSmarts("[x3]=[x2]")


def _shortest_ring_through(mol: Chem.Mol, a: Chem.Atom, b: Chem.Atom, x: Chem.Atom) -> int | None:
    """Atoms in the smallest ring that holds the bonds ``x-a`` and ``a-b`` (a path from ``b`` to ``x`` that avoids
    ``a``, plus ``a``), or ``None`` when there is none."""
    start, goal, skip = b.GetIdx(), x.GetIdx(), a.GetIdx()
    depth = {start: 1}
    frontier = [start]
    while frontier:
        nxt = []
        for i in frontier:
            for nb in mol.GetAtomWithIdx(i).GetNeighbors():
                j = nb.GetIdx()
                if j == skip or j in depth:
                    continue
                depth[j] = depth[i] + 1
                if j == goal:
                    return depth[j] + 1
                nxt.append(j)
        frontier = nxt
    return None


def _bridgehead_double_bond(mol: Chem.Mol) -> str | None:
    """An anti-Bredt double bond: a ring double bond at a bridgehead atom ``a`` (three ring neighbours ``b``, ``x``,
    ``y``) whose partner ``b`` has one other ring neighbour, so both rings through the double bond (``x-a=b`` and
    ``y-a=b``) run on through that neighbour and the bond is trans in one of them (Wiseman); when even the larger
    of the two smallest such rings has fewer than 8 atoms (trans-cyclooctene is the smallest isolable trans
    cycloalkene) the molecule cannot be isolated: bicyclo[2.2.1]hept-1-ene, bicyclo[2.2.2]oct-1-ene, adamantene,
    not bicyclo[3.3.1]non-1-ene (its trans ring has 8 atoms) nor a fused ring's double bond (octalins, indenes)."""
    if not mol.HasSubstructMatch(_BRIDGEHEAD_DOUBLE_BOND):  # a C++ screen: the Python walk below is the slow part
        return None
    for bond in mol.GetBonds():
        if bond.GetBondType() != Chem.BondType.DOUBLE or bond.GetIsAromatic() or not bond.IsInRing():
            continue
        for a, b in ((bond.GetBeginAtom(), bond.GetEndAtom()), (bond.GetEndAtom(), bond.GetBeginAtom())):
            largest = _bredt_violation(mol, a, b)
            if largest is not None:
                return (f"a double bond at a bridgehead atom (Bredt's rule: trans in a ring of {largest} atoms at "
                        "most)")
    return None


def _ring_bonded(mol: Chem.Mol, atom: Chem.Atom, skip: int = -1) -> list[Chem.Atom]:
    """The neighbours of ``atom`` joined to it by a ring bond (but atom index ``skip``)."""
    return [nb for nb in atom.GetNeighbors()
            if nb.GetIdx() != skip and mol.GetBondBetweenAtoms(atom.GetIdx(), nb.GetIdx()).IsInRing()]


def _bredt_violation(mol: Chem.Mol, a: Chem.Atom, b: Chem.Atom) -> int | None:
    """The larger ring in which a double bond ``a=b`` (drawn or not: the enolate of a ketone at ``b``) would be trans,
    when ``a`` is a bridgehead and that ring is under 8 atoms (Bredt's rule forbids the bond); ``None`` otherwise.
    See :func:`_bridgehead_double_bond`."""
    ring_nbs = _ring_bonded(mol, a)
    if len(ring_nbs) != 3 or b.GetIdx() not in {nb.GetIdx() for nb in ring_nbs}:
        return None
    if len(_ring_bonded(mol, b, skip=a.GetIdx())) != 1:
        return None  # a fused ring's double bond (cis in both rings), or a bond between two bridgeheads
    x, y = (nb for nb in ring_nbs if nb.GetIdx() != b.GetIdx())
    rings = [_shortest_ring_through(mol, a, b, x), _shortest_ring_through(mol, a, b, y)]
    if None in rings:
        return None
    largest = max(rings)  # type: ignore[type-var]
    return largest if largest < MIN_RING["trans double bond"] else None


@functools.lru_cache(maxsize=65536)
def strained_ring(smiles: str) -> str | None:
    """What makes the molecule of ``smiles`` impossible to isolate as drawn: a triple bond in a ring of fewer than
    8 atoms, an allene in a ring of fewer than 9, or a double bond at a bridgehead that Bredt's rule forbids
    (:func:`_bridgehead_double_bond`; ``None``: nothing, or unparsable). Aromatic rings are not concerned; a string
    without ``#``, ``=C=``, or ``=`` and two ring closures is answered without parsing, and answers are remembered
    (the route search asks about every precursor of every proposal, the same molecules many times)."""
    bredt = "=" in smiles and _ring_closures(smiles) >= 4  # a bridged ring system needs two ring closures at least
    if "#" not in smiles and "=C=" not in smiles:
        if not bredt:
            return None
        # only the graph and its rings matter here: the unsanitised parse is several times faster
        try:
            with rdBase.BlockLogs():
                graph = Chem.MolFromSmiles(smiles, sanitize=False)
            if graph is None:
                return None
            Chem.FastFindRings(graph)
        except Exception:  # noqa: BLE001 - unparsable: no verdict
            return None
        return _bridgehead_double_bond(graph)
    mol = _parse(smiles)
    if mol is None:
        return None
    if bredt and (what := _bridgehead_double_bond(mol)) is not None:
        return what
    rings = mol.GetRingInfo()
    for bond in mol.GetBonds():
        if not bond.IsInRing() or bond.GetIsAromatic():
            continue
        size = rings.MinBondRingSize(bond.GetIdx())
        if bond.GetBondType() == Chem.BondType.TRIPLE and size < MIN_RING["triple bond"]:
            return f"a triple bond in a ring of {size} atoms"
    for atom in mol.GetAtoms():
        double = [b for b in atom.GetBonds() if b.GetBondType() == Chem.BondType.DOUBLE]
        if (atom.GetAtomicNum() == 6 and len(double) == 2 and atom.IsInRing()
                and all(b.GetOtherAtom(atom).GetAtomicNum() == 6 for b in double)):
            size = rings.MinAtomRingSize(atom.GetIdx())
            if size < MIN_RING["allene"]:
                return f"an allene in a ring of {size} atoms"
    return None


#: Nucleophilic N-H groups (free, uncharged) that acylate, sulfonylate or add to a heterocumulene at room temperature:
#: an alkyl amine (every neighbour an sp3 carbon), an aniline on a benzene ring (NH2 or N-alkyl; not a diarylamine,
#: an aminopyridine-type heteroaryl amine or an amide, sulfonamide or urea N-H, and not on a ring with a nitro group,
#: whose amines are too weak: 4-amino-3-nitrobenzoyl chloride is a published intermediate), and a hydrazine's or
#: hydrazide's NH2.  (name, SMARTS, whether a nitro group on its aromatic ring spares it)
SELF_REACTIVE_NUCLEOPHILES: tuple[tuple[str, str, bool], ...] = (
    ("a free alkyl amine", "[NX3;H2,H1;+0;!$(N~[!#6;!#1]);!$(N[#6]=,#,:[*])]", False),
    ("a free aryl amine", "[NX3;H2,H1;+0;!$(N~[!#6;!#1]);$(Nc1ccccc1);!$(N(a)a);!$(N[#6]=[*])]", True),
    ("a hydrazine or hydrazide NH2", "[NX3;H2;+0][NX3;+0]", False),
)
#: Electrophiles those amines attack at room temperature: (name, what forms, SMARTS).  A sulfonyl fluoride is not one
#: (it needs activation, SuFEx); an aldehyde is not (an imine forms reversibly, and is often the point).
SELF_REACTIVE_ELECTROPHILES: tuple[tuple[str, str, str], ...] = (
    ("an acyl halide", "an amide", "[CX3](=O)[Cl,Br,I,F]"),
    ("a sulfonyl chloride", "a sulfonamide", "[SX4](=O)(=O)[Cl,Br,I]"),
    ("an anhydride", "an amide", "[CX3](=O)O[CX3]=O"),
    ("an isocyanate", "a urea", "N=C=O"),
    ("an isothiocyanate", "a thiourea", "N=C=S"),
)


def _smarts(pattern: str) -> Chem.Mol:
    mol = Chem.MolFromSmarts(pattern)
    if mol is None:  # a typo in the tables above, not user input
        raise ValueError(f"bad SMARTS {pattern!r}")
    return mol


#: A carbamic acid (an N-COOH): it loses CO2 to the amine as it forms and exists only as a salt or under CO2 pressure.
#: No intermediate or leaf of the ref-lin-600 and PaRoutes reference routes is one; 3 of the 49,673 distinct USPTO-50K
#: products and 4 recorded reactants are drawn so (records of Boc removals and CO2 work-ups), and 2 of those reactants
#: are in the building-block stock.  Carbamic acid itself (``NC(=O)O``) is how records draw ammonium carbamate, a
#: reagent sold as such, so a nitrogen without another heavy neighbour is not matched.
_CARBAMIC_ACID = _smarts("[#7;!D1][CX3](=[OX1])[OX2H1]")
#: A free N-H amine on a carbon that carries a halogen (an alpha-haloamine): it loses the hydrogen halide to the imine
#: or iminium ion as it forms.  No reference-route molecule is one; 3 recorded USPTO-50K reactants are drawn so.
#: Amides, sulfonamides and N-chloromethyl imides (stable reagents) are not matched.
_ALPHA_HALO_AMINE = _smarts("[NX3;H1,H2;+0;!$(N[#6,#16]=[O,S,N]);!$(N[SX4](=O)=O)][CX4][F,Cl,Br,I]")
#: A nitro group on a carbonyl carbon (an acyl nitro compound, R-C(=O)-NO2): a reactive acylating and nitrating
#: species, not a starting material or intermediate; none of the USPTO-50K, reference-route or building-block molecules
#: holds one (apixaban's route of 2026-12-04 bought one, a Bloom-filter hit, and "reduced" it to the carboxamide).
_ACYL_NITRO = _smarts("[CX3](=O)[N+](=O)[O-]")
#: A free acylboronic acid (R-CO-B(OH)2): acylboron compounds are isolated only with the boron made four-coordinate
#: (potassium acyltrifluoroborates, acyl MIDA boronates); the free acid is not a starting material or intermediate.
#: None of the USPTO-50K reactants or products (train, val, test), building blocks or benchmark reference-route
#: molecules holds an acyl-boron bond of any kind (bortezomib's first route of 2026-12-05 bought
#: ``CC(C)=CC(=O)B(O)O``, a Bloom-filter hit).
_ACYL_BORONIC_ACID = _smarts("[#6][CX3](=[OX1])[BX3]([OX2H1])[OX2H1]")
_UNSTABLE_GROUPS = (
    (_CARBAMIC_ACID, "a carbamic acid (N-COOH): it loses CO2 to the amine as it forms, so it exists only as a salt"),
    (_ALPHA_HALO_AMINE, "a free N-H amine on a carbon that carries a halogen: it loses the hydrogen halide to the "
                        "imine as it forms"),
    (_ACYL_NITRO, "a nitro group on a carbonyl carbon (an acyl nitro compound): a reactive acylating and nitrating "
                  "species, not an isolable starting material or intermediate"),
    (_ACYL_BORONIC_ACID, "a free acylboronic acid (R-CO-B(OH)2): acylboron compounds are isolable only as "
                         "trifluoroborate or MIDA boronate salts"),
)


@functools.lru_cache(maxsize=65536)
def unstable_group(smiles: str) -> str | None:
    """What makes the molecule of ``smiles`` fall apart as drawn, whether made or bought: a carbamic acid, which
    loses CO2, a free N-H amine on a halogen-bearing carbon, which loses the hydrogen halide, an acyl nitro group or a
    free acylboronic acid (``None``: none of them, or unparsable).  A string without a nitrogen or a boron is answered
    without parsing."""
    if "N" not in smiles and "n" not in smiles and "B" not in smiles.replace("Br", ""):
        return None
    mol = _parse(smiles)
    if mol is None:
        return None
    return next((what for pattern, what in _UNSTABLE_GROUPS if mol.HasSubstructMatch(pattern)), None)


def unisolable(smiles: str) -> str | None:
    """What makes the molecule of ``smiles`` impossible to isolate or buy as drawn: :func:`strained_ring` or
    :func:`unstable_group` (``None``: neither)."""
    return strained_ring(smiles) or unstable_group(smiles)


#: Free O-H and S-H nucleophiles that an acyl halide in the same molecule esterifies without a base (the HCl leaves
#: as a gas): a primary or secondary alcohol (a hydroxy acid chloride closes a lactone or oligomerises; it is made and
#: used with the hydroxyl protected, as 2-acetoxyacetyl chloride stands for glycolyl chloride) and a thiol
#: (a thioester).  Not a tertiary alcohol (slow, and hindered: bicalutamide's 2-hydroxy-2-methyl acid chloride is made
#: and coupled in situ), not a phenol (salicyloyl chlorides are published reagents; 4-hydroxy-3-methoxy-5-nitrobenzoyl
#: chloride is a published intermediate), and not beside a sulfonyl chloride, anhydride or isocyanate, which need a
#: base or catalyst (3-chlorosulfonyl-4-hydroxybenzoic acid is a published intermediate).  No product of the 50,085
#: USPTO-50K reactions and no intermediate of the ref-lin-600 and PaRoutes n5 reference routes holds such a pair; two
#: recorded reactants do (glycolyl chloride, one other).  (name, SMARTS, what forms)
SELF_REACTIVE_OXY_NUCLEOPHILES: tuple[tuple[str, str, str], ...] = (
    ("a free primary or secondary alcohol", "[OX2H;+0][CX4;H1,H2]", "an ester (a lactone or an oligoester)"),
    ("a thiol", "[SX2H;+0][#6]", "a thioester"),
)
#: Carbonyl partners a free alkyl amine condenses with at room temperature to a stable product: (name, what forms,
#: SMARTS).  A beta-keto ester, amide or 1,3-diketone gives a beta-enamino carbonyl (a vinylogous amide, no water
#: needed to drive it), so an intermediate holding both as drawn oligomerises or closes a ring (amlodipine's amino
#: keto ester is made with the amine as an azide or phthalimide for that reason).  4 of the 82,226 distinct molecules
#: of the USPTO-50K training reactions hold one such pair, and no intermediate of the ref-lin-600 and PaRoutes
#: reference routes does.
SELF_CONDENSING_CARBONYLS: tuple[tuple[str, str, str], ...] = (
    ("a beta-keto carbonyl", "a beta-enamino carbonyl", "[#6]-[CX3](=O)-[CX4;H1,H2]-[CX3]=O"),
)

_NUCLEOPHILES = tuple((name, _smarts(sma), nitro_spares) for name, sma, nitro_spares in SELF_REACTIVE_NUCLEOPHILES)
_ELECTROPHILES = tuple((name, forms, _smarts(sma)) for name, forms, sma in SELF_REACTIVE_ELECTROPHILES)
_OXY_NUCLEOPHILES = tuple((name, _smarts(sma), forms) for name, sma, forms in SELF_REACTIVE_OXY_NUCLEOPHILES)
_ALKYL_AMINE = _smarts(SELF_REACTIVE_NUCLEOPHILES[0][1])
_CONDENSING = tuple((name, forms, _smarts(sma)) for name, forms, sma in SELF_CONDENSING_CARBONYLS)
#: A free alkyl amine whose neighbouring carbon carries a CH2 or CH with a chloride, bromide or iodide (a
#: 2-haloethylamine): as the free base it closes an aziridine (the nitrogen mustards' aziridinium), so it is handled as
#: its salt.  8 of the 82,226 distinct molecules of the USPTO-50K training reactions are drawn so (2-bromoethylamine
#: and the like, bought as salts), and no intermediate of the ref-lin-600 and PaRoutes reference routes is one.
_BETA_HALOAMINE = _smarts(f"[$({SELF_REACTIVE_NUCLEOPHILES[0][1]})]-[CX4]-[CX4;!$(C(F)F)][Cl,Br,I]")
#: A free hydroxyl on a carbon that carries a halogen (trifluoromethanol, a 1-haloalkanol, a difluorocarbinol): it
#: loses the hydrogen halide to the carbonyl compound (trifluoromethanol to carbonyl fluoride above about -20 C), so
#: it is never isolated or bought (riluzole's route of 2026-12-03 "deprotected" methyl trifluoromethyl ether to it).
#: Chloral and trifluoroacetaldehyde hydrates, whose halogens sit on the next carbon, are not matched.
_ALPHA_HALO_ALCOHOL = _smarts("[OX2H;+0][CX4][F,Cl,Br,I]")
#: An N-H tetrazole (pKa about 5: any base of an alkylation makes its anion) and a benzylic or allylic CH2 halide.  No
#: reactant of the 50,085 USPTO-50K reactions holds both in one molecule; sartan syntheses alkylate with the N-trityl
#: tetrazole or the nitrile and build the tetrazole last.
_NH_TETRAZOLE = _smarts("[#6]1:[#7]:[#7]:[#7]:[#7]:1")
_BENZYLIC_HALIDE = _smarts("[CH2X4;$(C-a),$(C-C=C)][Cl,Br,I]")


def _on_nitroarene(mol: Chem.Mol, n_idx: int) -> bool:
    """Whether the aromatic ring that nitrogen ``n_idx`` sits on carries a nitro group."""
    atom = mol.GetAtomWithIdx(n_idx)
    for aryl in atom.GetNeighbors():
        if not aryl.GetIsAromatic():
            continue
        for ring in mol.GetRingInfo().AtomRings():
            if aryl.GetIdx() in ring and any(nb.GetAtomicNum() == 7 and nb.GetFormalCharge() == 1
                                             for idx in ring for nb in mol.GetAtomWithIdx(idx).GetNeighbors()
                                             if nb.GetIdx() not in ring):
                return True
    return False


def self_reactive(smiles: str) -> str | None:
    """What makes the molecule of ``smiles`` react with itself as drawn: a free amine (or hydrazine) beside an acyl
    halide, sulfonyl chloride, anhydride, isocyanate or isothiocyanate in the same molecule, which couple
    (intermolecularly, or to a ring) as soon as the free base exists, a free primary or secondary alcohol or a thiol
    beside an acyl halide (:data:`SELF_REACTIVE_OXY_NUCLEOPHILES`: a lactone, oligoester or thioester), a free alkyl
    amine beside a beta-keto ester or 1,3-diketone (:data:`SELF_CONDENSING_CARBONYLS`), which condense to an enamine,
    a 2-haloethylamine, which closes an aziridine, a hydroxyl on a halogen-bearing carbon (trifluoromethanol),
    which loses the hydrogen halide, or an N-H tetrazole beside a benzylic or allylic halide, whose anion (any base
    makes it) alkylates the next molecule.  Such a molecule is handled
    only as its ammonium salt or with the nucleophile protected, so a route that makes it as drawn skips a step.
    ``None``: nothing, or unparsable; a SMILES without N and without a halogen is answered without parsing."""
    if "N" not in smiles and "n" not in smiles and not any(x in smiles for x in ("Cl", "Br", "I", "F")):
        return None
    mol = _parse(smiles)
    if mol is None:
        return None
    if mol.HasSubstructMatch(_ALPHA_HALO_ALCOHOL):
        return ("a hydroxyl on a carbon that carries a halogen (trifluoromethanol, a 1-haloalkanol): it loses the "
                "hydrogen halide to a carbonyl compound (carbonyl fluoride, an acyl halide, an aldehyde) as it forms, "
                "so it is no isolable intermediate or reagent")
    tetrazole = _nh_tetrazole_beside_benzylic_halide(mol)
    if tetrazole is not None:
        return tetrazole
    electrophiles = [(name, forms, hits) for name, forms, pat in _ELECTROPHILES
                     if (hits := mol.GetSubstructMatches(pat))]
    if not electrophiles:
        return _self_condensing(mol)
    nucleophiles = [(name, match[0]) for name, pat, nitro_spares in _NUCLEOPHILES
                    for match in mol.GetSubstructMatches(pat)
                    if not (nitro_spares and _on_nitroarene(mol, match[0]))]
    fragment = _fragment_index(mol)
    for e_name, forms, e_hits in electrophiles:
        for n_name, n_idx in nucleophiles:
            # in the same molecule (not a salt's or mixture's other part), and not the heterocumulene's own N
            if any(fragment[hit[0]] == fragment[n_idx] and n_idx not in hit for hit in e_hits):
                return f"{n_name} and {e_name} in one molecule: they give {forms}"
    acyl = next(([hit[0] for hit in hits] for name, _forms, hits in electrophiles if name == "an acyl halide"), [])
    for o_name, pat, forms in _OXY_NUCLEOPHILES if acyl else ():
        for match in mol.GetSubstructMatches(pat):
            if any(fragment[c] == fragment[match[0]] for c in acyl):
                return f"{o_name} and an acyl halide in one molecule: they give {forms}"
    return _self_condensing(mol)


def _nh_tetrazole_beside_benzylic_halide(mol: Chem.Mol) -> str | None:
    """``self_reactive``'s text when one molecule of ``mol`` holds an N-H tetrazole (:data:`_NH_TETRAZOLE` with a
    hydrogen on a ring nitrogen) and a benzylic or allylic CH2 halide (:data:`_BENZYLIC_HALIDE`), else ``None``."""
    halides = mol.GetSubstructMatches(_BENZYLIC_HALIDE)
    if not halides:
        return None
    fragment = _fragment_index(mol)
    for ring in mol.GetSubstructMatches(_NH_TETRAZOLE):
        if not any(mol.GetAtomWithIdx(i).GetAtomicNum() == 7 and mol.GetAtomWithIdx(i).GetTotalNumHs() for i in ring):
            continue
        if any(fragment[c] == fragment[ring[0]] for c, _x in halides):
            return ("an N-H tetrazole and a benzylic or allylic halide in one molecule: the tetrazole (pKa about 5) is "
                    "deprotonated by the base of any alkylation and its anion alkylates the halide of the next "
                    "molecule (oligomers); sartan syntheses alkylate with the N-trityl tetrazole, or with the nitrile "
                    "and build the tetrazole last")
    return None


def _fragment_index(mol: Chem.Mol) -> dict[int, int]:
    """Atom index -> the index of the molecule (fragment) of ``mol`` that holds it."""
    return {idx: i for i, frag in enumerate(Chem.GetMolFrags(mol)) for idx in frag}


def _self_condensing(mol: Chem.Mol) -> str | None:
    """A free alkyl amine and a beta-keto carbonyl in one molecule, or a 2-haloethylamine (see
    :func:`self_reactive`), else ``None``."""
    if mol.HasSubstructMatch(_BETA_HALOAMINE):
        return ("a free alkyl amine with a halide on the carbon beyond its own (a 2-haloethylamine): it closes an "
                "aziridine")
    carbonyls = [(name, forms, hits) for name, forms, pat in _CONDENSING if (hits := mol.GetSubstructMatches(pat))]
    if not carbonyls:
        return None
    amines = [match[0] for match in mol.GetSubstructMatches(_ALKYL_AMINE)]
    if not amines:
        return None
    fragment = _fragment_index(mol)
    for name, forms, hits in carbonyls:
        if any(fragment[hit[0]] == fragment[n_idx] for hit in hits for n_idx in amines):
            return f"a free alkyl amine and {name} in one molecule: they give {forms}"
    return None


#: What an N-H, O-H or S-H nucleophile makes of each strong electrophile (``SELF_REACTIVE_ELECTROPHILES`` names; an
#: amine makes what that table says); an alcohol or phenol takes an isothiocyanate only when heated, so O has no entry
#: for it.
_STRONG_FORMS: dict[int, dict[str, str]] = {
    7: {name: forms for name, forms, _sma in SELF_REACTIVE_ELECTROPHILES},
    8: {"an acyl halide": "an ester", "a sulfonyl chloride": "a sulfonate ester", "an anhydride": "an ester",
        "an isocyanate": "a carbamate"},
    16: {"an acyl halide": "a thioester", "a sulfonyl chloride": "a thiosulfonate", "an anhydride": "a thioester",
         "an isocyanate": "a thiocarbamate", "an isothiocyanate": "a dithiocarbamate"},
}


def _strong_electrophiles(reactants: Chem.Mol, product: Chem.Mol,
                          rmap: dict[int, Chem.Atom]) -> tuple[set[int], list[tuple[str, int]]]:
    """The reactant atom indices of every acyl halide, sulfonyl chloride, anhydride, isocyanate or isothiocyanate
    group (:data:`SELF_REACTIVE_ELECTROPHILES`), and (name, product map number of its first atom) of each such
    group the product keeps: the same mapped atoms form it on both sides, so the step carries it through unchanged
    (a group the step makes is not kept)."""
    strong: set[int] = set()
    kept: list[tuple[str, int]] = []
    for name, _forms, pat in _ELECTROPHILES:
        r_hits = set(reactants.GetSubstructMatches(pat))
        for hit in r_hits:
            strong.update(hit)
        if not r_hits:
            continue
        for hit in product.GetSubstructMatches(pat):
            if name == "an anhydride" and product.GetAtomWithIdx(hit[2]).IsInRing():
                continue  # a cyclic anhydride: diaryl maleic anhydrides survive their indoles' N-alkylation
            maps = [product.GetAtomWithIdx(i).GetAtomMapNum() for i in hit]
            if all(maps) and all(m in rmap for m in maps) and tuple(rmap[m].GetIdx() for m in maps) in r_hits:
                kept.append((name, maps[0]))
    return strong, kept


#: A primary alpha-halo ketone (a phenacyl halide, chloro- or bromoacetone): amines and thiols displace its halide far
#: faster than they take an ordinary alkyl halide or an ester, or condense with its ketone (an alpha-amino ketone forms
#: at room temperature), so a step in which they react elsewhere while its carbon-halogen bond stays does not run as
#: drawn.  Not matched: an alpha-halo aldehyde (chloroacetaldehyde's iminium forms first: reductive aminations with it
#: make 2-chloroethylamines), a secondary or gem-dihalo carbon (far slower SN2), and the ketone of a 1,3-dicarbonyl
#: (ethyl 4-chloroacetoacetate condenses with amidines, 2-aminopyridines and 2-aminoaryl ketones to pyrimidines,
#: pyridopyrimidinones and quinolines that keep the CH2Cl: four published steps).
_HALIDE_NAMES = {"Cl": "chloride", "Br": "bromide", "I": "iodide"}
_ALPHA_HALO_CARBONYLS = (_smarts("[Cl,Br,I][CH2X4][CX3;!$(C(=O)[CX4][CX3]=O)](=O)[#6]"),)
#: An azide source's terminal nitrogen: the azide ion, hydrazoic acid, or a silyl or stannyl azide (TMSN3, Bu3SnN3),
#: which deliver the azide ion.  An organic azide (a click reaction's partner) is not one.
_AZIDE_SOURCE = _smarts("[$([N-]=[N+]=[N-]),$([NX2;H1]=[N+]=[N-]),$([NX2]([Si,Sn])=[N+]=[N-]),$([N-]=[N+]=[NX2][Si,Sn])]")
#: A carbon with a leaving group that azide displaces (S_N2): a primary or secondary alkyl chloride, bromide, iodide
#: or sulfonate, not a gem-dihalide; (carbon, leaving atom).
_SN2_LEAVING = (_smarts("[CX4;!$(C([Cl,Br,I])[Cl,Br,I,F]);!$(C([#6])([#6])([#6])[Cl,Br,I])][Cl,Br,I]"),
                _smarts("[CX4;!$(C([#6])([#6])([#6])O)][OX2]S(=O)(=O)[#6,F]"))


def _mapped_bonds(mol: Chem.Mol) -> set[frozenset[int]]:
    """Every bond of ``mol`` as the pair of its atoms' map numbers."""
    return {frozenset((bond.GetBeginAtom().GetAtomMapNum(), bond.GetEndAtom().GetAtomMapNum()))
            for bond in mol.GetBonds()}


def _azide_beside_kept_halides(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom],
                               new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int, int, str]]:
    """(azide nitrogen map, its new partner's map, kept carbon's map, leaving group's element) when an azide source's
    nitrogen (:data:`_AZIDE_SOURCE`) adds to a nitrile's or alkyne's carbon or opens an epoxide (a three-membered
    ring's carbon; not an amide activated in situ as its imidoyl chloride, nor an acyl chloride, which react faster
    than an alkyl halide) while a primary or secondary alkyl halide or sulfonate of the reactants
    (:data:`_SN2_LEAVING`) keeps its bond in the product; empty when the step displaces such a group itself (one
    halide chosen over another: ``halide_selectivity``'s business)."""
    azide = {idx for match in reactants.GetSubstructMatches(_AZIDE_SOURCE) for idx in match}
    if not azide:
        return []
    leaving: dict[int, tuple[int, int, str]] = {}  # carbon index -> (carbon map, leaving map, element)
    for pat in _SN2_LEAVING:
        for c, x, *_ in reactants.GetSubstructMatches(pat):
            atom_c, atom_x = reactants.GetAtomWithIdx(c), reactants.GetAtomWithIdx(x)
            leaving[c] = (atom_c.GetAtomMapNum(), atom_x.GetAtomMapNum(),
                          atom_x.GetSymbol() if atom_x.GetAtomicNum() != 8 else "sulfonate")
    pbonds = _mapped_bonds(product) if leaving else set()
    kept = next(((mc, sym) for mc, mx, sym in leaving.values() if mc and mx and frozenset((mc, mx)) in pbonds), None)
    if kept is None:
        return []
    for x, y in new:
        for n, e in ((x, y), (y, x)):
            n_react, e_react = rmap[n.GetAtomMapNum()], rmap[e.GetAtomMapNum()]
            if n_react.GetIdx() not in azide or e.GetAtomicNum() != 6:
                continue
            if e_react.GetIdx() in leaving:
                return []  # azide displaces a leaving group here: the substitution is the step
            if not (e_react.IsInRingSize(3) or any(b.GetBondType() == Chem.BondType.TRIPLE for b in e_react.GetBonds())):
                continue  # not a nitrile, alkyne or epoxide: an amide's imidoyl chloride or an acyl chloride is faster
            return [(n.GetAtomMapNum(), e.GetAtomMapNum(), kept[0], kept[1])]
    return []


def _alpha_halo_carbonyls_kept(reactants: Chem.Mol, product: Chem.Mol,
                               rmap: dict[int, Chem.Atom]) -> list[tuple[int, int, int]]:
    """(reactant index of the halide-bearing carbon, product map number of that carbon, reactant index of its carbonyl
    carbon) for every primary alpha-halo ketone of the reactants (:data:`_ALPHA_HALO_CARBONYLS`) whose carbon-halogen
    bond the product keeps (whether or not its carbonyl reacts); none when the step displaces the halide of one (a
    Hantzsch thiazole from 1,3-dichloroacetone keeps the other chloride: the fast reaction is the one drawn)."""
    out: list[tuple[int, int, int]] = []
    pbonds = _mapped_bonds(product)
    seen: set[int] = set()
    for pat in _ALPHA_HALO_CARBONYLS:
        for x, c, k, *_ in reactants.GetSubstructMatches(pat):
            if c in seen:
                continue
            mx, mc = (reactants.GetAtomWithIdx(i).GetAtomMapNum() for i in (x, c))
            if not mc:
                continue  # a leaving fragment
            if not mx or frozenset((mx, mc)) not in pbonds:
                return []  # this step displaces an alpha-halo ketone's halide itself
            seen.add(c)
            out.append((c, mc, k))
    return out


def _free_acid_alpha_carbon(atom: Chem.Atom, partner_map: int) -> bool:
    """Whether sp3 carbon ``atom`` is the alpha carbon of a free carboxylic acid (or carboxylate): a neighbour other
    than the new bond's partner (map ``partner_map``) is a carboxylic acid's carbon (:func:`_carboxylic_acid`)."""
    return any(_carboxylic_acid(nb) for kind, nb in _alpha_neighbours(atom, partner_map) if kind == "pi_hetero")


def _carbonyl_carbon(carbon: Chem.Atom) -> bool:
    """Whether ``carbon`` is a non-aromatic carbon double-bonded to oxygen (an aldehyde, ketone, ester, amide, acyl
    halide or CO2 carbon)."""
    return carbon.GetAtomicNum() == 6 and not carbon.GetIsAromatic() and any(
        b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(carbon).GetAtomicNum() == 8 for b in carbon.GetBonds())


def _aldehyde_carbon(carbon: Chem.Atom) -> bool:
    """Whether ``carbon`` is an aldehyde's carbon: C=O with a hydrogen and no other heteroatom (not a formamide's or
    a formate's)."""
    return _carbonyl_carbon(carbon) and carbon.GetTotalNumHs() >= 1 and all(
        b.GetOtherAtom(carbon).GetAtomicNum() in (1, 6) or b.GetBondType() == Chem.BondType.DOUBLE
        for b in carbon.GetBonds())


#: The groups a Grignard made from magnesium metal attacks and halogen-magnesium exchange tolerates, by their names in
#: the functional-group library (``data/functional_groups.json``), with the words :data:`HALOGEN_EXCHANGE_TEXT` uses.
_EXCHANGE_TOLERANT = {"nitrile": "a nitrile", "ester": "an ester"}


def _exchange_tolerant_groups(reactants: Chem.Mol, product: Chem.Mol, carbon: Chem.Atom,
                              partner: Chem.Atom) -> list[str]:
    """The nitrile and ester groups (:data:`_EXCHANGE_TOLERANT`) that the molecule of ``carbon`` (an aryl or vinyl
    bromide or iodide made the organometallic partner of the carbonyl carbon ``partner``) carries and the product
    keeps (the same group on the same mapped atoms).  Empty when the two carbons are one molecule (an intramolecular
    step reads otherwise)."""
    frag = set(_fragment_of(reactants, carbon.GetIdx()))
    if partner.GetIdx() in frag:
        return []
    found: list[str] = []
    for group in functional_group_library():
        if group.name not in _EXCHANGE_TOLERANT:
            continue
        kept = {frozenset(product.GetAtomWithIdx(i).GetAtomMapNum() for i in match)
                for match in product.GetSubstructMatches(group.pattern)}
        for match in reactants.GetSubstructMatches(group.pattern):
            maps = frozenset(reactants.GetAtomWithIdx(i).GetAtomMapNum() for i in match)
            if frag.issuperset(match) and 0 not in maps and maps in kept:
                found.append(_EXCHANGE_TOLERANT[group.name])
                break
    return sorted(found)


def _carboxylic_acid(carbon: Chem.Atom) -> bool:
    """Whether ``carbon`` is a carboxylic acid's (or carboxylate's) carbon: a non-aromatic C=O carbon with a
    terminal OH or O-."""
    if carbon.GetAtomicNum() != 6 or carbon.GetIsAromatic():
        return False
    oxo = hydroxy = False
    for bond in carbon.GetBonds():
        nb = bond.GetOtherAtom(carbon)
        if nb.GetAtomicNum() != 8:
            continue
        if bond.GetBondType() == Chem.BondType.DOUBLE:
            oxo = True
        elif nb.GetDegree() == 1 and (nb.GetTotalNumHs() == 1 or nb.GetFormalCharge() == -1):
            hydroxy = True
    return oxo and hydroxy


#: What a sulfinate's sulfur (a sulfinic acid or sulfinate salt, RS(=O)O-H or RS(=O)O-) makes of each strong
#: electrophile it meets: sulfinates are S-acylated (acyl sulfones) and add to isocyanates (carbamoyl sulfones) at room
#: temperature, far faster than they displace an alkyl halide (bicalutamide's sulfone).
_SULFINATE_FORMS = {"an acyl halide": "an acyl sulfone", "an anhydride": "an acyl sulfone",
                    "an isocyanate": "a carbamoyl sulfone"}


def _sulfinate_sulfur(s_react: Chem.Atom, s_prod: Chem.Atom, partner: Chem.Atom) -> bool:
    """Whether ``s_react`` reacts as a sulfinate's sulfur with the reactant carbon ``partner``: the sulfur of a
    sulfinic acid or sulfinate (three neighbours: one carbon, one oxygen by a double bond, one OH or O-), whose proton
    or charge sits on its oxygen, so :func:`_loses_proton` does not see it react (a sulfone from a sulfinate and an
    alkyl halide), or a sulfonyl halide's sulfur that gives up its halide for a bond to an sp3 carbon (the one-pot
    sulfone: sulfite reduces the sulfonyl chloride to the sulfinate in situ, which the alkyl halide then S-alkylates;
    not a Friedel-Crafts sulfonylation of an arene)."""
    if s_react.GetAtomicNum() != 16 or s_react.GetFormalCharge() != 0:
        return False
    oxo = hydroxy = carbon = halide = 0
    for bond in s_react.GetBonds():
        nb = bond.GetOtherAtom(s_react)
        if nb.GetAtomicNum() == 8 and bond.GetBondType() == Chem.BondType.DOUBLE:
            oxo += 1
        elif nb.GetAtomicNum() == 8 and nb.GetDegree() == 1 and (nb.GetTotalNumHs() == 1 or nb.GetFormalCharge() == -1):
            hydroxy += 1
        elif nb.GetAtomicNum() == 6:
            carbon += 1
        elif nb.GetAtomicNum() in (17, 35, 53):
            halide += 1
    if s_react.GetDegree() == 3:
        return oxo == 1 and hydroxy == 1 and carbon == 1
    return (s_react.GetDegree() == 4 and oxo == 2 and halide == 1 and carbon == 1
            and partner.GetHybridization() == Chem.HybridizationType.SP3
            and not any(nb.GetAtomicNum() in (17, 35, 53) for nb in s_prod.GetNeighbors()))


def _nucleophile_name(n_react: Chem.Atom, n_prod: Chem.Atom) -> str:
    """How a flag names heteroatom nucleophile ``n`` (reactant and product atoms): "N-H", "O-H", "S-H", or "S- anion"
    when it reacts as its anion."""
    what = "N-H" if n_prod.GetAtomicNum() == 7 else f"{n_prod.GetSymbol()}-H"
    return f"{n_prod.GetSymbol()}- anion" if n_react.GetFormalCharge() < 0 else what


def _loses_proton(n_react: Chem.Atom, n_prod: Chem.Atom) -> bool:
    """Whether heteroatom ``n`` acts as an X-H nucleophile (or its anion) in the step: it loses a hydrogen or a
    negative charge (a tertiary amine or pyridine that only gains a bond is not one)."""
    return (n_react.GetTotalNumHs() > n_prod.GetTotalNumHs()
            or n_prod.GetFormalCharge() > n_react.GetFormalCharge() and n_react.GetFormalCharge() < 0)


def _marked(mol: Chem.Mol, maps: list[int]) -> str:
    """The molecule of ``mol`` holding ``maps[0]``, written with only the map numbers ``maps`` (so a reader sees
    which atom a flag names)."""
    copy = Chem.Mol(mol)
    for atom in copy.GetAtoms():
        if atom.GetAtomMapNum() not in maps:
            atom.SetAtomMapNum(0)
    return next((part for part in Chem.MolToSmiles(copy).split(".") if f":{maps[0]}]" in part), "")


#: Directing strength of a benzene ring's substituent for electrophilic aromatic substitution: heteroatom donors
#: (ortho/para, strong: hydroxy, alkoxy, amino, acylamino, thioether), weak donors (alkyl, aryl, acyloxy; ortho/para),
#: halogens and fluoroalkoxy groups (ortho/para, deactivating), and meta directors.
_DONOR, _WEAK_DONOR, _HALO_DIRECTOR, _META_DIRECTOR = 3, 1, 0, -1
_SEAR_HALOGENATION = {17: "chlorination", 35: "bromination", 53: "iodination"}


def _director(ring_atom: Chem.Atom, sub: Chem.Atom, acidic: bool) -> tuple[int, str] | None:
    """(directing class, name) of substituent ``sub`` on the benzene carbon ``ring_atom``, or ``None`` for a group
    whose direction is not judged (vinyl, alkyne, heteroaryl, imide, sulfonate, B/Si/Sn/P, imine...; under nitration
    or sulfonation, ``acidic``, an amine, which the acid protonates to a meta-directing ammonium)."""
    z = sub.GetAtomicNum()
    others = [n for n in sub.GetNeighbors() if n.GetIdx() != ring_atom.GetIdx()]
    if z in (9, 17, 35, 53):
        return _HALO_DIRECTOR, "halogen"
    if sub.GetIsAromatic() and z != 6:
        return None
    if z == 8:
        if sub.GetFormalCharge() < 0 or not others:
            return _DONOR, "hydroxy group"
        o = others[0]
        if o.GetAtomicNum() != 6:
            return None  # a sulfonate or silyl ether
        if _halogen_count(o) >= 2:
            return _HALO_DIRECTOR, "fluoroalkoxy group"  # OCHF2, OCF3: deactivating, ortho/para
        if _double_to_heteroatom(o, sub.GetIdx()):
            return _WEAK_DONOR, "acyloxy group"  # an ester or carbonate O: weaker than an alkyl group
        return _DONOR, "alkoxy group"
    if z == 7:
        if sub.GetFormalCharge() > 0:
            return _META_DIRECTOR, ("nitro group" if sum(n.GetAtomicNum() == 8 for n in others) >= 2
                                    else "ammonium group")
        if any(b.GetBondType() != Chem.BondType.SINGLE for b in sub.GetBonds()):
            return None
        acyls = sum(n.GetAtomicNum() in (6, 15, 16) and _double_to_heteroatom(n, sub.GetIdx()) for n in others)
        if acyls >= 2:
            return None  # an imide N (phthalimide): its lone pair is spent on two carbonyls
        if acyls:
            return _DONOR, "acylamino group"  # amide, carbamate, urea or sulfonamide N-H
        return None if acidic else (_DONOR, "amino group")
    if z == 16:
        if _double_to_heteroatom(sub, -1):
            return _META_DIRECTOR, "sulfonyl group"
        return (_DONOR, "thioether") if len(others) == 1 and others[0].GetAtomicNum() == 6 else None
    if z != 6 or sub.GetFormalCharge():
        return None
    if sub.GetIsAromatic():
        ring = next((r for r in sub.GetOwningMol().GetRingInfo().AtomRings() if sub.GetIdx() in r), ())
        carbocyclic = all(sub.GetOwningMol().GetAtomWithIdx(i).GetAtomicNum() == 6 for i in ring)
        return (_WEAK_DONOR, "aryl group") if carbocyclic else None
    if sum(n.GetAtomicNum() in (9, 17) for n in others) >= 2:
        return _META_DIRECTOR, "trihalomethyl group"
    for bond in sub.GetBonds():
        other = bond.GetOtherAtom(sub)
        if other.GetIdx() == ring_atom.GetIdx() or bond.GetBondType() == Chem.BondType.SINGLE:
            continue
        if other.GetAtomicNum() in (7, 8, 16):
            if bond.GetBondType() == Chem.BondType.TRIPLE:
                return _META_DIRECTOR, "nitrile"
            return _META_DIRECTOR, {7: "imino group", 8: "carbonyl group", 16: "thiocarbonyl group"}[other.GetAtomicNum()]
        return None  # vinyl, alkyne
    return _WEAK_DONOR, "alkyl group"


def _sear_kind(e_react: Chem.Atom, e_prod: Chem.Atom) -> str | None:
    """The electrophilic aromatic substitution a new bond from an arene C-H to ``e`` writes: a halogenation,
    nitration, sulfonation, Friedel-Crafts acylation (an acyl halide, anhydride or acid with a carbon group) or
    alkylation (a secondary, tertiary, benzylic or allylic carbon losing a halide, hydroxyl or sulfonate, or an
    alkene carbon); ``None`` for the electrophiles of a directed metalation (DMF, CO2, chloroformates, aldehydes and
    ketones, methyl and plain primary alkyl halides, CBr4), for a carbon that a neighbouring acceptor makes a
    nucleophile (vicarious substitution), and others."""
    z = e_prod.GetAtomicNum()
    if z in _SEAR_HALOGENATION:
        # a halogenating agent: X2, ICl, an N-halo imide or amide, a hypohalite, SO2Cl2; not HX or a halide ion
        # (a nucleophile), nor CBr4 or C2Cl6 (the halogen sources of a metalated arene), nor POCl3, MsCl or SOCl2
        # (deoxychlorination of an N-oxide)
        sources = [n for n in e_react.GetNeighbors() if n.GetAtomicNum() in (7, 8, *_SEAR_HALOGENATION)
                   or (n.GetAtomicNum() == 16 and _halogen_count(n) >= 2 and n.GetDegree() == 4)]
        return _SEAR_HALOGENATION[z] if sources else None
    if z == 7 and sum(n.GetAtomicNum() == 8 for n in e_prod.GetNeighbors()) >= 2:
        return "nitration"
    if z == 16 and _double_to_heteroatom(e_prod, -1):
        return "sulfonation"
    if z != 6 or e_react.GetIsAromatic():
        return None
    carbons = [n for n in e_react.GetNeighbors() if n.GetAtomicNum() == 6]
    if _double_to_heteroatom(e_prod, -1):
        leaves = any(b.GetOtherAtom(e_react).GetAtomicNum() in (17, 35) or (
            b.GetOtherAtom(e_react).GetAtomicNum() == 8 and b.GetBondType() == Chem.BondType.SINGLE)
            for b in e_react.GetBonds())
        hetero = [n for n in e_react.GetNeighbors() if n.GetAtomicNum() != 6]
        alkoxy = any(n.GetAtomicNum() == 8 and n.GetDegree() == 2 and not any(
            _double_to_heteroatom(m, n.GetIdx()) for m in n.GetNeighbors() if m.GetIdx() != e_react.GetIdx())
            for n in hetero)  # a chloroformate or ester: not a Friedel-Crafts acylating agent
        return "Friedel-Crafts acylation" if carbons and leaves and not alkoxy and len(hetero) == 2 else None
    if e_prod.GetHybridization() != Chem.HybridizationType.SP3 or _double_to_heteroatom(e_react, -1):
        return None  # not sp3 in the product, or an aldehyde or ketone carbon
    if not carbons or any(_double_to_heteroatom(n, e_react.GetIdx()) or
                          (n.GetAtomicNum() == 7 and n.GetFormalCharge() > 0) for n in e_react.GetNeighbors()):
        return None  # a methyl group, or a carbanion next to an acceptor (vicarious substitution)
    alkene = any(b.GetBondType() == Chem.BondType.DOUBLE for b in e_react.GetBonds())
    if not alkene and len(carbons) == 1 and not carbons[0].GetIsAromatic() and not any(
            b.GetBondType() != Chem.BondType.SINGLE for b in carbons[0].GetBonds()):
        return None  # a plain primary alkyl (ethyl iodide): the electrophile of a metalated arene, not of an SEAr
    lost = any(n.GetAtomicNum() in (8, 17, 35, 53) for n in _lost_neighbours(e_react, e_prod))
    return "Friedel-Crafts alkylation" if alkene or lost else None


#: Groups on an aromatic carbon that electrophiles replace (ipso-substitution) on an electron-rich ring, by element: a
#: boronic acid or ester (ipso-halogenation and -nitration, protodeboronation in strong acid), a trialkyl- or
#: triarylsilyl group (ipso-desilylation) and a trialkylstannyl group (halodestannylation).
_IPSO_GROUPS = {5: "a boronic acid or ester", 14: "a silyl group", 50: "a stannyl group"}


def _ipso_ring_verdict(mol: Chem.Mol, carbon: Chem.Atom, group: Chem.Atom, acidic: bool) -> str | None:
    """What makes the aromatic ring of ``carbon`` (which carries ``group``) electron-rich enough for an electrophile to
    replace the group: a heteroatom donor on a benzene ring, or the ring's own heteroatom in a furan, thiophene or
    pyrrole ring (one heteroatom, five members); ``None`` when nothing does, or when a meta director sits on the ring
    or it is an azine or azole (published routes nitrate 3-carboxyphenylboronic acid and a
    2-trimethylsilylbenzamide with the C-B and C-Si bonds kept; phenylboronic acid itself is nitrated to
    nitrophenylboronic acids)."""
    rings = [r for r in mol.GetRingInfo().AtomRings() if carbon.GetIdx() in r
             and all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in r)]
    ring = next((r for r in rings if len(r) == 5), None) or next((r for r in rings if len(r) == 6), None)
    if ring is None:
        return None
    hetero = [mol.GetAtomWithIdx(i) for i in ring if mol.GetAtomWithIdx(i).GetAtomicNum() != 6]
    donor = None
    if len(ring) == 5:
        if len(hetero) != 1 or hetero[0].GetAtomicNum() not in (7, 8, 16) or hetero[0].GetFormalCharge():
            return None  # an azole or another ring: not judged
        donor = {7: "pyrrole", 8: "furan", 16: "thiophene"}[hetero[0].GetAtomicNum()] + " ring's heteroatom"
    elif hetero:
        return None  # an azine ring: electron-poor
    for i in ring:
        atom = mol.GetAtomWithIdx(i)
        for sub in atom.GetNeighbors():
            if sub.GetIdx() in ring or sub.GetIdx() == group.GetIdx():
                continue
            verdict = _director(atom, sub, acidic)
            if verdict is None:
                continue
            if verdict[0] == _META_DIRECTOR:
                return None
            if verdict[0] == _DONOR:
                donor = donor or verdict[1]
    return donor


def _ipso_group(reactants: Chem.Mol, carbon: Chem.Atom, pmap: dict[int, Chem.Atom], kind: str
                ) -> tuple[int, str, str] | None:
    """(map number of the aromatic carbon, group, what makes its ring electron-rich) of an aryl C-B, C-Si or C-Sn bond
    on an electron-rich ring (:func:`_ipso_ring_verdict`) in the molecule of ``carbon``, which the product keeps;
    ``None`` when there is none. Spared: a MIDA boronate (tetracoordinate boron bonded to its nitrogen survives
    strong electrophiles) and a silicon bonded to a heteroatom (the phenyls of a TBDPS ether)."""
    frag = _fragment_of(reactants, carbon.GetIdx())
    acidic = kind in ("nitration", "sulfonation")
    for idx in frag:
        atom = reactants.GetAtomWithIdx(idx)
        if atom.GetAtomicNum() != 6 or not atom.GetIsAromatic() or not atom.GetAtomMapNum():
            continue
        for nb in atom.GetNeighbors():
            z = nb.GetAtomicNum()
            if z not in _IPSO_GROUPS:
                continue
            others = [m.GetAtomicNum() for m in nb.GetNeighbors()]
            if (z == 5 and nb.GetDegree() == 4 and 7 in others) or (z == 14 and any(o != 6 for o in others)):
                continue
            kept = pmap.get(atom.GetAtomMapNum())
            if kept is None or not kept.GetIsAromatic() or not any(m.GetAtomicNum() == z for m in kept.GetNeighbors()):
                continue
            donor = _ipso_ring_verdict(reactants, atom, nb, acidic)
            if donor is not None:
                return atom.GetAtomMapNum(), _IPSO_GROUPS[z], donor
    return None


def _is_six_ring(mol: Chem.Mol, ring: tuple[int, ...], carbocyclic: bool = False) -> bool:
    """Whether ``ring`` is an aromatic six-membered ring (all carbon when ``carbocyclic``)."""
    return len(ring) == 6 and all(mol.GetAtomWithIdx(i).GetIsAromatic() and (
        not carbocyclic or mol.GetAtomWithIdx(i).GetAtomicNum() == 6) for i in ring)


def _six_ring(mol: Chem.Mol, atom: Chem.Atom, carbocyclic: bool = False) -> tuple[int, ...] | None:
    """The first aromatic six-membered ring through ``atom`` (all carbon when ``carbocyclic``), or ``None``."""
    return next((r for r in mol.GetRingInfo().AtomRings()
                 if atom.GetIdx() in r and _is_six_ring(mol, r, carbocyclic)), None)


def _ring_order(ring: tuple[int, ...], start: int) -> list[int]:
    """The atom indices of ``ring`` (RDKit lists a ring's atoms in ring order) rotated to begin at ``start``."""
    i = ring.index(start)
    return list(ring[i:] + ring[:i])


def _benzene_ring(mol: Chem.Mol, atom: Chem.Atom) -> list[int] | None:
    """The atom indices of the benzene ring through ``atom``, in ring order from it; ``None`` when the atom is not
    on a six-carbon aromatic ring or the ring is fused to another aromatic ring (naphthalene, indole, quinoline:
    :func:`_naphthalene_verdict` and :func:`_heteroaryl_verdict` judge those)."""
    ring = _six_ring(mol, atom, carbocyclic=True)
    if ring is None:
        return None
    members = set(ring)
    for other in mol.GetRingInfo().AtomRings():
        if set(other) != members and len(members & set(other)) >= 2 and any(
                mol.GetAtomWithIdx(i).GetIsAromatic() for i in other if i not in members):
            return None
    return _ring_order(ring, atom.GetIdx())


def _sear_sites(reactants: Chem.Mol, new: list[tuple[Chem.Atom, Chem.Atom]], rmap: dict[int, Chem.Atom]
                ) -> dict[tuple[int, ...], tuple[list[int] | None, set[int], str, list[tuple[int, int]]]]:
    """The electrophilic substitutions of the new bonds ``new`` at aromatic C-H of the reactants: (the benzene ring's
    order, the substituted positions, the kind, the (ring carbon, electrophile) map-number pairs) by benzene ring;
    (``None``, {the carbon's index}, the kind, its pair) per carbon of another aromatic ring. Both bonds of an
    annulation land on one benzene ring and are judged together; an intramolecular bond (a cyclisation, whose tether
    sets the site) is not counted."""
    found: dict[tuple[int, ...], tuple[list[int] | None, set[int], str, list[tuple[int, int]]]] = {}
    for c, e, c_react, e_react in _arene_ch_substitutions(reactants, new, rmap):
        kind = _sear_kind(e_react, e)
        if kind is None:
            continue
        order = _benzene_ring(reactants, c_react)
        if order is None:
            found[(-1 - c_react.GetIdx(),)] = (None, {c_react.GetIdx()}, kind,
                                                [(c.GetAtomMapNum(), e.GetAtomMapNum())])
            continue
        entry = found.setdefault(tuple(sorted(order)), (order, set(), kind, []))
        entry[1].add(entry[0].index(c_react.GetIdx()))
        entry[3].append((c.GetAtomMapNum(), e.GetAtomMapNum()))
    return found


def _arene_ch_substitutions(reactants: Chem.Mol, new: list[tuple[Chem.Atom, Chem.Atom]], rmap: dict[int, Chem.Atom]
                            ) -> Iterator[tuple[Chem.Atom, Chem.Atom, Chem.Atom, Chem.Atom]]:
    """(ring carbon, partner) product atoms and their reactant atoms for each new bond (:func:`_new_bonds`) from an
    aromatic C-H carbon of one precursor to an atom of another: an intermolecular substitution at an arene C-H (an
    intramolecular bond is a cyclisation, whose tether sets the site)."""
    for x, y in new:
        for c, e in ((x, y), (y, x)):
            if c.GetAtomicNum() != 6 or not c.GetIsAromatic():
                continue
            c_react, e_react = rmap[c.GetAtomMapNum()], rmap[e.GetAtomMapNum()]
            if not c_react.GetIsAromatic() or c_react.GetTotalNumHs() <= c.GetTotalNumHs() or \
                    _lost_neighbours(c_react, c):
                continue  # not an aromatic C-H substitution
            if not _same_fragment(reactants, c_react, e_react):
                yield c, e, c_react, e_react


_SEAR_AT_C3 = frozenset({"chlorination", "bromination", "iodination", "Friedel-Crafts acylation",
                         "Friedel-Crafts alkylation"})
_SEAR_HALOGEN_NITRO = frozenset({"chlorination", "bromination", "iodination", "nitration", "sulfonation"})


def _indole_c3(mol: Chem.Mol, atom: Chem.Atom) -> tuple[Chem.Atom, Chem.Atom] | None:
    """(the free C3, the pyrrole-type N) of an indole-type ring system through ``atom`` (indole, an azaindole,
    indazole: a five-membered aromatic ring with one pyrrole-type N that is no fusion atom, no O or S, fused to a
    six-membered aromatic ring), when the five-membered ring's one non-fusion carbon not bonded to that N carries a
    hydrogen; ``None`` otherwise."""
    rings = mol.GetRingInfo().AtomRings()
    for ring in rings:
        if len(ring) != 5 or not all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in ring):
            continue
        fused = [r for r in rings if len(set(r) & set(ring)) == 2 and _is_six_ring(mol, r)]
        if len(fused) != 1 or (atom.GetIdx() not in ring and atom.GetIdx() not in fused[0]):
            continue
        fusion = set(ring) & set(fused[0])
        members = [mol.GetAtomWithIdx(i) for i in ring]
        pyrrole = [a for a in members if a.GetAtomicNum() == 7 and a.GetFormalCharge() == 0 and a.GetIdx() not in fusion
                   and (a.GetTotalNumHs() == 1 or a.GetDegree() == 3)]
        if len(pyrrole) != 1 or any(a.GetAtomicNum() in (8, 16) for a in members):
            return None
        n = pyrrole[0]
        c3 = [a for a in members if a.GetAtomicNum() == 6 and a.GetIdx() not in fusion
              and mol.GetBondBetweenAtoms(a.GetIdx(), n.GetIdx()) is None]
        return (c3[0], n) if len(c3) == 1 and c3[0].GetTotalNumHs() else None
    return None


def _alkyl_naphthalene(mol: Chem.Mol, atom: Chem.Atom, azine: bool = False) -> set[int] | None:
    """The two fusion atoms of the naphthalene through ``atom`` when the two rings are all-carbon, fused to no third
    aromatic ring, and carry nothing but alkyl groups; ``None`` otherwise.  ``azine``: instead, the carbocyclic ring
    through ``atom`` fused to an azine ring (quinoline, isoquinoline, quinazoline, quinoxaline: pyridine-type ring
    nitrogens only, no charged atom), on the same terms."""
    own = _six_ring(mol, atom, carbocyclic=True)
    if own is None:
        return None
    fused = [r for r in mol.GetRingInfo().AtomRings() if r != own and len(set(r) & set(own)) >= 2]
    if len(fused) != 1 or not _is_six_ring(mol, fused[0], carbocyclic=not azine):
        return None
    if azine:
        other = [mol.GetAtomWithIdx(i) for i in fused[0] if i not in own]
        if not any(a.GetAtomicNum() == 7 for a in other) or not all(
                a.GetAtomicNum() == 6 or (_pyridine_type(a) and not a.GetFormalCharge()) for a in other):
            return None
    system = set(own) | set(fused[0])
    if any(len(set(r) & system) >= 2 and not set(r) <= system and mol.GetAtomWithIdx(next(iter(set(r) - system)))
           .GetIsAromatic() for r in mol.GetRingInfo().AtomRings()):
        return None  # a third aromatic ring fused on (anthracene, phenanthrene)
    for idx in system:
        ring_atom = mol.GetAtomWithIdx(idx)
        for sub in ring_atom.GetNeighbors():
            if sub.GetIdx() not in system and _director(ring_atom, sub, False) != (_WEAK_DONOR, "alkyl group"):
                return None  # a substituent other than a plain alkyl group: its direction is not judged here
    return set(own) & set(fused[0])


def _naphthalene_verdict(mol: Chem.Mol, atom: Chem.Atom, kind: str, e_react: Chem.Atom) -> str | None:
    """An alkylnaphthalene's textbook regiochemistry: halogenation and nitration take a free alpha position (next to
    a fusion atom) first; a tertiary alkyl cation goes to beta (the peri hydrogen crowds alpha: 2-tert-butyl-
    naphthalene).  The benzo ring of an alkylquinoline-type system (:func:`_alkyl_naphthalene` with ``azine``) takes
    halogenation and nitration at a free alpha position too (quinoline: C5 and C8; the azinium ring withdraws and the
    alpha positions keep the benzo ring's sextet); sulfonation is not judged (quinoline-6-sulfonic acid is the hot,
    thermodynamic product), nor Friedel-Crafts (``deactivated_arene`` covers the azine ring)."""
    fusion = _alkyl_naphthalene(mol, atom)
    azine = fusion is None
    if azine and (fusion := _alkyl_naphthalene(mol, atom, azine=True)) is None:
        return None
    alpha = any(n.GetIdx() in fusion for n in atom.GetNeighbors())
    if (not azine and kind == "Friedel-Crafts alkylation" and alpha
            and sum(n.GetAtomicNum() == 6 for n in e_react.GetNeighbors()) >= 3):
        return ("an alpha position of a naphthalene, which a tertiary alkyl group does not take (the peri hydrogen "
                "crowds it; Friedel-Crafts tert-alkylation goes to beta)")
    if kind in ("chlorination", "bromination", "iodination", "nitration") and not alpha:
        ring = _six_ring(mol, atom, carbocyclic=True)
        if any(i not in fusion and mol.GetAtomWithIdx(i).GetTotalNumHs()
               and any(n.GetIdx() in fusion for n in mol.GetAtomWithIdx(i).GetNeighbors()) for i in ring):
            if azine:
                return ("a beta position of a quinoline-type benzo ring (C6 or C7 of quinoline) whose free alpha "
                        "position (C5 or C8) on the same ring reacts first")
            return "a beta position of a naphthalene whose free alpha position on the same ring reacts first"
    return None


def _heteroaryl_verdict(mol: Chem.Mol, atom: Chem.Atom, kind: str) -> str | None:
    """Why a substitution at aromatic carbon ``atom`` of a ring other than a lone benzene ring or an alkylnaphthalene
    goes where no electrophile goes, or ``None``. Two textbook cases only: an indole-type ring system halogenated or
    Friedel-Crafts-substituted anywhere but its free C3 (C3 is by far the most nucleophilic carbon; C2 of an
    N-substituted one is spared: N-protected indoles are lithiated there), and a halogenation, nitration or
    sulfonation of an azine carbon next to a pyridine-type ring N (pyridine, pyrimidine, quinoline: electrophiles
    go meta to the ring N, if at all) without an ortho or para heteroatom donor (3-hydroxypyridine iodinates at
    C2), on a ring with no ring carbonyl or N-H (pyridones)."""
    system = {i for r in mol.GetRingInfo().AtomRings() if atom.GetIdx() in r for i in r}
    if any(mol.GetAtomWithIdx(i).GetFormalCharge() for i in system):
        return None  # an N-oxide or azinium ring: nucleophilic substitution, not an electrophilic one
    if kind in _SEAR_AT_C3:
        found = _indole_c3(mol, atom)
        if found is not None:
            c3, n = found
            if c3.GetIdx() == atom.GetIdx():
                return None  # at C3 itself
            if n.GetDegree() == 3 and mol.GetBondBetweenAtoms(atom.GetIdx(), n.GetIdx()) is not None:
                return None  # C2 of an N-substituted indole: lithiated there (a directed metalation)
            if _donor_ortho_para(mol, atom):
                return None  # an amino or hydroxy group on the six-membered ring directs here (7-aminoindoles)
            return (f"the indole-type ring's C3 (atom {c3.GetAtomMapNum() or c3.GetIdx()}) is free and takes an "
                    f"electrophile far faster")
    if kind not in _SEAR_HALOGEN_NITRO:
        return None
    ring = _six_ring(mol, atom)
    ring_n = [n for n in atom.GetNeighbors() if ring and n.GetIdx() in ring and _pyridine_type(n)]
    if not ring_n:  # (the ring holds no charged atom: checked above)
        return None
    members = [mol.GetAtomWithIdx(i) for i in ring]
    if any(a.GetAtomicNum() == 7 and a.GetTotalNumHs() for a in members) or any(_ring_carbonyl(a) for a in members):
        return None  # a pyridone, pyrimidinone or other lactam ring: another reactivity
    for n in ring_n:
        for other in n.GetNeighbors():
            if other.GetIdx() != atom.GetIdx() and any(
                    sub.GetAtomicNum() in _ALL_HALOGENS or (sub.GetAtomicNum() in (7, 8) and not sub.GetTotalNumHs())
                    for sub in other.GetNeighbors() if sub.GetIdx() not in ring):
                return None  # a 2-halo-, 2-alkoxy- or 2-dialkylaminopyridine: lithiated at C6 by BuLi-LiDMAE
    if _donor_ortho_para(mol, atom, ring, nitrogen_protonated=kind in ("nitration", "sulfonation")):
        return None
    return "next to a pyridine-type ring nitrogen, with no hydroxy, alkoxy or amino group ortho or para to it"


def _deactivated_azine(mol: Chem.Mol, atom: Chem.Atom, kind: str) -> str | None:
    """``"pyridine-type ring nitrogen"`` when a Friedel-Crafts substitution (``kind``) is written at carbon ``atom`` of
    a six-membered aromatic ring that holds a pyridine-type nitrogen (pyridine, pyrimidine, the hetero ring of a
    quinoline) and no heteroatom donor, N-H, ring carbonyl or charged atom (an N-oxide, a pyridone); the same with a
    longer reason for a ring with two or three such nitrogens and fewer heteroatom donors than nitrogens
    (trimethoprim's 2-amino-4-chloropyrimidine "acylated" at C5; a 2,4-diaminopyrimidine is spared); ``None``
    otherwise. The ring nitrogen withdraws and takes the Lewis acid, so no Friedel-Crafts reaction goes there.
    A nitration or sulfonation (``kind``) counts on such a ring only when it has no heteroatom donor at all: the
    acid protonates the ring nitrogen (torasemide's route "chlorosulfonating" 4-chloropyridine at C3; a
    2-aminopyrimidine is nitrated at C5, a pyridine N-oxide at C4), and not when a halogen sits next to the ring
    nitrogen (2,6-dichloropyridine, too weak a base to be protonated, is nitrated at C3)."""
    if not kind.startswith("Friedel-Crafts") and kind not in ("nitration", "sulfonation"):
        return None
    ring = _six_ring(mol, atom)
    if ring is None:
        return None
    members = [mol.GetAtomWithIdx(i) for i in ring]
    if not any(_pyridine_type(a) for a in members) or any(
            a.GetFormalCharge() or (a.GetAtomicNum() == 7 and a.GetTotalNumHs()) or _ring_carbonyl(a) for a in members):
        return None
    n_ring_n = sum(_pyridine_type(a) for a in members)
    donors = _ring_donor_count(mol, ring)
    if not kind.startswith("Friedel-Crafts") and (donors != 0 or any(
            a.GetAtomicNum() == 6 and any(n.GetAtomicNum() in _ALL_HALOGENS for n in a.GetNeighbors())
            and any(_pyridine_type(n) for n in a.GetNeighbors()) for a in members)):
        # a donor (or a group not judged) on the ring; or a halogen next to the ring nitrogen, which makes the
        # nitrogen too weak a base to be protonated (2,6-dichloropyridine is nitrated at C3 in oleum; a published
        # PaRoutes step nitrates a 2,3,6-trifluoropyridine)
        return None
    if donors is None or (donors and n_ring_n < 2) or donors >= n_ring_n:
        return None  # a donor on a pyridine ring, as many donors as ring nitrogens, or a group not judged
    if donors:  # a diazine or triazine that one donor does not make nucleophilic enough (2-aminopyrimidine)
        return f"{n_ring_n} pyridine-type ring nitrogens, which its one heteroatom donor does not outweigh"
    return "pyridine-type ring nitrogen"


def _ring_donor_count(mol: Chem.Mol, ring: tuple[int, ...], at: list[int] | tuple[int, ...] | None = None,
                      nitrogen_protonated: bool = False) -> int | None:
    """How many heteroatom donors (:func:`_director`'s strong class) sit on the atoms ``at`` (default: all) of the
    six-membered aromatic ``ring`` (fused aromatic rings and aryl groups aside); ``None`` when a group there is not
    judged."""
    count = 0
    for idx in ring if at is None else at:
        ring_atom = mol.GetAtomWithIdx(idx)
        for sub in ring_atom.GetNeighbors():
            if sub.GetIdx() in ring or sub.GetIsAromatic():
                continue  # a ring member, or a fused aromatic ring
            found_class = _director(ring_atom, sub, nitrogen_protonated)
            if found_class is None:
                return None
            count += found_class[0] == _DONOR
    return count


def _ring_donor(mol: Chem.Mol, ring: tuple[int, ...], at: list[int] | tuple[int, ...],
                nitrogen_protonated: bool = False) -> bool:
    """Whether a heteroatom donor (:func:`_director`'s strong class), or a group it does not judge, sits on one of
    the atoms ``at`` of the six-membered aromatic ``ring`` (fused aromatic rings and aryl groups aside)."""
    return _ring_donor_count(mol, ring, at, nitrogen_protonated) != 0


def _donor_ortho_para(mol: Chem.Mol, atom: Chem.Atom, ring: tuple[int, ...] | None = None,
                      nitrogen_protonated: bool = False) -> bool:
    """Whether a heteroatom donor (:func:`_director`'s strong class), or a group it does not judge, sits ortho or
    para to ``atom`` on its six-membered aromatic ``ring`` (by default the first one through it)."""
    ring = ring or _six_ring(mol, atom)
    if ring is None:
        return False
    order = _ring_order(ring, atom.GetIdx())
    return _ring_donor(mol, ring, [order[pos] for pos in (1, 3, 5)], nitrogen_protonated)


def aromatic_substitutions(mapped_reaction: str) -> list[dict[str, Any]]:
    """The intermolecular electrophilic substitutions at an aromatic C-H that one atom-mapped step writes, the ones
    ``aromatic_regiochemistry`` looks at: ``[{kind, ring, atoms}]`` per benzene ring (``ring`` "benzene") or per
    carbon of another aromatic ring ("other"), ``atoms`` the (ring carbon, electrophile) map numbers of each new
    bond. Empty without an atom map or when a side does not parse."""
    left, _, right = (mapped_reaction or "").partition(">>")
    reactants, product = _parse(left), _parse(right)
    if reactants is None or product is None:
        return []
    _adopt_orphan_maps(reactants, product)
    rmap = _mapped_atoms(reactants)
    return [{"kind": kind, "ring": "benzene" if order is not None else "other", "atoms": pairs}
            for order, _, kind, pairs in _sear_sites(reactants, _new_bonds(reactants, product, rmap), rmap).values()]


def _ortho_para(i: int, j: int) -> bool:
    return min(abs(i - j), 6 - abs(i - j)) in (1, 3)


def _ortho(i: int, j: int) -> bool:
    return min(abs(i - j), 6 - abs(i - j)) == 1


def _ring_groups(mol: Chem.Mol, order: list[int], sites: set[int],
                 acidic: bool) -> tuple[list[tuple[int, int, str]], set[int]] | None:
    """The directing groups of the benzene ring ``order`` as ``(position, class, name)`` and its free positions
    (``sites`` included), or ``None`` when a group's direction is not judged (:func:`_director`). A heteroatom donor
    that carries a group, is not held in a fused ring and is flanked by two ortho substituents counts as a weak one."""
    groups: list[tuple[int, int, str]] = []  # (position, class, name)
    twistable: set[int] = set()  # positions of a donor that carries a group and is not held in a fused ring
    free = set(sites)
    for pos, idx in enumerate(order):
        ring_atom = mol.GetAtomWithIdx(idx)
        outside = [n for n in ring_atom.GetNeighbors() if n.GetIdx() not in order]
        if not outside and ring_atom.GetTotalNumHs():
            free.add(pos)
        for sub in outside:
            found = _director(ring_atom, sub, acidic)
            if found is None:
                return None
            groups.append((pos, *found))
            if sub.GetDegree() > 1 and not mol.GetBondBetweenAtoms(idx, sub.GetIdx()).IsInRing():
                twistable.add(pos)
    taken = {g[0] for g in groups}
    return [(p, _WEAK_DONOR if c == _DONOR and p in twistable and {(p + 1) % 6, (p - 1) % 6} <= taken else c, n)
            for p, c, n in groups], free


def _deactivated_for_friedel_crafts(mol: Chem.Mol, order: list[int], sites: set[int], kind: str) -> str | None:
    """The names of the groups that deactivate benzene ring ``order`` against a Friedel-Crafts substitution
    (``kind``): a nitro, nitrile, carbonyl, imino, sulfonyl, trihalomethyl or ammonium group, with no heteroatom donor
    (hydroxy, alkoxy, amino, acylamino, thioether) on the ring; ``None`` otherwise, or for another kind of substitution
    or a ring whose groups are not judged."""
    if not kind.startswith("Friedel-Crafts"):
        return None
    ring = _ring_groups(mol, order, sites, False)
    if ring is None:
        return None
    groups = ring[0]
    metas = sorted({g[2] for g in groups if g[1] == _META_DIRECTOR})
    if not metas or any(g[1] == _DONOR for g in groups):
        return None
    return " and the ".join(metas)


def _sear_verdict(mol: Chem.Mol, order: list[int], sites: set[int], kind: str) -> str | None:
    """Why the new groups at ring positions ``sites`` (indices into ``order``) go against the ring's directing
    groups, or ``None`` when a site is where they direct, or the ring is not judged. Three verdicts: a site meta to
    every ortho/para director while one of them has a free ortho or para position; a site that only weak donors or
    halogens direct to while a heteroatom donor has a free position (its para position for an acylamino group,
    whose ortho positions its bulk shields); on a ring with meta directors only, a site ortho or para to one while a
    position meta to all is free, or, where none is (a phthalimide, a phthalate), a site ortho to one while a position
    ortho to none is free. A heteroatom donor that carries a group (NHAc, OMe, NMe2; not NH2 or OH, not one
    held in a fused ring) and is flanked by two ortho substituents counts as a weak one (twisted out of the ring's
    plane, it donates little: 2,6-dimethylacetanilide nitrates meta to its NHAc)."""
    ring = _ring_groups(mol, order, sites, kind in ("nitration", "sulfonation"))
    if ring is None:
        return None
    groups, free = ring
    directors = [g for g in groups if g[1] >= _HALO_DIRECTOR]
    metas = [g for g in groups if g[1] == _META_DIRECTOR]
    if kind.startswith("Friedel-Crafts") and metas:
        return None  # a deactivated ring takes no Friedel-Crafts (``deactivated_arene``): not a question of position
    names = lambda gs: " and the ".join(sorted({g[2] for g in gs}))  # noqa: E731
    if directors:
        if not any(_ortho_para(s, g[0]) for s in sites for g in directors):
            if any(_ortho_para(f, g[0]) for f in free for g in directors):
                return f"meta to the {names(directors)}, which direct{'s' if len(directors) == 1 else ''} ortho/para"
            return None
        donors = [g for g in directors if g[1] == _DONOR]
        open_to_donor = any(min(abs(f - g[0]), 6 - abs(f - g[0])) == 3 or (
            _ortho_para(f, g[0]) and g[2] != "acylamino group") for f in free for g in donors)
        if donors and open_to_donor and not any(_ortho_para(s, g[0]) for s in sites for g in donors):
            weaker = [g for g in directors if g[1] < _DONOR]
            return f"meta to the {names(donors)}, which directs ortho/para and outweighs the {names(weaker)}"
        return _crowded_ortho_verdict(mol, order, sites, directors, free)
    if metas and all(any(_ortho_para(s, g[0]) for g in metas) for s in sites) and any(
            not any(_ortho_para(f, g[0]) for g in metas) for f in free):
        return f"ortho or para to the {names(metas)}, which directs meta"
    if metas and all(any(_ortho(s, g[0]) for g in metas) for s in sites) and any(
            not any(_ortho(f, g[0]) for g in metas) for f in free):
        return (f"ortho to one of the ring's meta directors (the {names(metas)}), while a position ortho to none of "
                "them is free (a phthalimide is nitrated at C4, not C3)")
    return None


def _crowded_ortho_verdict(mol: Chem.Mol, order: list[int], sites: set[int], directors: list[tuple[int, int, str]],
                           free: set[int]) -> str | None:
    """Why a substitution ortho to a tertiary alkyl group (a carbon with no hydrogen: tert-butyl, trityl,
    chlorodiphenylmethyl) goes where the electrophile does not, or ``None``: every site is ortho to such a group and
    ortho or para to no other director, and that group's para position is free. Its bulk shields both ortho
    positions (tert-butylbenzene is brominated 97 % para, nitrated 75 % para and 16 % ortho)."""
    bulky = []
    for pos, cls, _name in directors:
        ring_atom = mol.GetAtomWithIdx(order[pos])
        subs = [n for n in ring_atom.GetNeighbors() if n.GetIdx() not in order]
        if cls == _WEAK_DONOR and len(subs) == 1 and subs[0].GetAtomicNum() == 6 and not subs[0].GetIsAromatic() \
                and not subs[0].GetTotalNumHs() and subs[0].GetDegree() == 4 and not any(
                    n.GetAtomicNum() not in (6, *_ALL_HALOGENS) or _double_to_heteroatom(n, -1)
                    for n in subs[0].GetNeighbors()):
            # a carbon with no hydrogen carrying only alkyl, aryl or halogen groups: a carboxylic acid, amide or
            # pyridine on it directs a Pd C-H activation to the ortho position (1-phenylcyclopropanecarboxylic acid
            # iodinated ortho: a published PaRoutes step, on four routes)
            bulky.append(pos)
    for site in sites:
        if not any(_ortho(site, b) for b in bulky) or any(
                _ortho_para(site, g[0]) and not (g[0] in bulky and _ortho(site, g[0])) for g in directors):
            return None  # not ortho to such a group, or ortho or para to another director (para to a tert-butyl)
    if not any((b + 3) % 6 in free for b in bulky if any(_ortho(s, b) for s in sites)):
        return None
    return ("ortho to a tertiary alkyl group whose bulk shields its ortho positions while its para position is free "
            "(tert-butylbenzene is brominated 97 % para)")


def _nucleophile_kind(atom: Chem.Atom) -> str | None:
    """What an uncharged N-H or O-H is, for :func:`_competing_sites`: ``"primary amine"`` / ``"secondary amine"`` (a
    non-aromatic N bonded only to sp3 carbons), ``"primary alcohol"`` / ``"secondary alcohol"`` (an OH on an sp3
    carbon whose other neighbours are carbons), ``"phenol"``; each amine and alcohol kind also names how many heavy
    atoms its carbon(s) carry, so a CH2-NH2 and a tert-alkyl NH2 differ.  ``None`` for anything else."""
    if atom.GetFormalCharge() or atom.GetIsAromatic() or not atom.GetTotalNumHs():
        return None
    heavy = [n for n in atom.GetNeighbors() if n.GetAtomicNum() > 1]
    if atom.GetAtomicNum() == 7:
        if not heavy or any(n.GetAtomicNum() != 6 or n.GetIsAromatic()
                            or n.GetHybridization() != Chem.HybridizationType.SP3 for n in heavy):
            return None
        kind = {2: "primary amine", 1: "secondary amine"}.get(atom.GetTotalNumHs())
        return f"{kind}:{sorted(n.GetDegree() for n in heavy)}" if kind else None
    if atom.GetAtomicNum() != 8 or len(heavy) != 1:
        return None
    c = heavy[0]
    if c.GetIsAromatic():
        return "phenol"
    if c.GetAtomicNum() != 6 or c.GetHybridization() != Chem.HybridizationType.SP3 or any(
            n.GetAtomicNum() != 6 for n in c.GetNeighbors() if n.GetIdx() != atom.GetIdx()):
        return None
    kind = {2: "primary alcohol", 3: "secondary alcohol"}.get(c.GetDegree())
    return f"{kind}:{c.GetDegree()}" if kind else None


def _symmetry_classes(mol: Chem.Mol) -> list[int]:
    """Each atom's symmetry class (RDKit's canonical ranks without tie-breaking), atom maps and stereo ignored: the two
    NH2 of a meso or C2-symmetric 1,2-diamine are one class (mono-functionalised statistically, in excess)."""
    return list(Chem.CanonicalRankAtoms(strip_atom_maps(mol), breakTies=False, includeChirality=False))


def _h_bonded_phenol(atom: Chem.Atom) -> bool:
    """Whether phenol oxygen ``atom`` has a carbonyl, nitro or imine group ortho (an intramolecular hydrogen bond)."""
    return any((sub.GetAtomicNum() == 7 and sub.GetFormalCharge() == 1) or _double_to_heteroatom(sub, ortho.GetIdx())
               for ortho, sub in _ortho_substituents(atom.GetNeighbors()[0]))


def _competing_sites(reactants: Chem.Mol, product: Chem.Mol, rmap: dict[int, Chem.Atom], pmap: dict[int, Chem.Atom],
                     new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int, int, str]]:
    """(nucleophile, partner, kept twin map numbers, kind) of each new bond from an amine or alcohol N-H/O-H
    (:func:`_nucleophile_kind`) to an atom of another molecule while the nucleophile's molecule keeps another group of
    the same kind with all its hydrogens (see ``competing_site``)."""
    out: list[tuple[int, int, int, str]] = []
    seen: set[int] = set()
    ranks: list[int] | None = None
    for x, y in new:
        for n, e in ((x, y), (y, x)):
            mn, me = n.GetAtomMapNum(), e.GetAtomMapNum()
            n_react = rmap[mn]
            if mn in seen or n.GetAtomicNum() not in (7, 8) or not _loses_proton(n_react, n):
                continue
            kind = _nucleophile_kind(n_react)
            if kind is None or _same_fragment(reactants, n_react, rmap[me]):
                continue
            seen.add(mn)
            fragment = _fragment_of(reactants, n_react.GetIdx())
            for idx in fragment:
                twin = reactants.GetAtomWithIdx(idx)
                mt = twin.GetAtomMapNum()
                if idx == n_react.GetIdx() or not mt or mt not in pmap or twin.GetAtomicNum() != n.GetAtomicNum():
                    continue
                if twin.GetTotalNumHs() != pmap[mt].GetTotalNumHs() or _nucleophile_kind(twin) != kind:
                    continue
                if _nucleophile_kind(pmap[mt]) != kind or (kind == "phenol" and _h_bonded_phenol(twin)):
                    continue
                if ranks is None:
                    ranks = _symmetry_classes(reactants)
                if ranks[idx] == ranks[n_react.GetIdx()]:
                    continue  # a symmetric diol or diamine: used in excess, mono-functionalised statistically
                out.append((mn, me, mt, kind.split(":")[0]))
                break
    return out


#: An ester's alkyl group, by how readily base or acid hydrolyses the ester (:func:`_ester_parts`): an aryl ester
#: first, then methyl, a primary and a secondary alkyl group.
_ALKOXY_RANK = {"aryl": 4, "methyl": 3, "primary": 2, "secondary": 1}


def _ester_parts(carbon: Chem.Atom) -> tuple[int, str, bool, str] | None:
    """(acyl rank, alkyl kind, simple, name) of an ester carbonyl ``carbon`` (a non-aromatic C=O carbon bonded to a
    carbon and to an O-C); ``None`` for anything else (an acid, a carbamate, a carbonate, a thioester, a lactone, a
    tert-alkyl ester, which base leaves alone).  The acyl rank is :func:`_acyl_rank`'s.  The alkyl kind is a key of
    :data:`_ALKOXY_RANK`; ``simple`` says a plain saponification cleaves it (a methyl, or an alkyl carbon whose other
    neighbours are sp3 carbons without silicon: not a benzyl, allyl, 2-silylethyl or acyloxymethyl ester, which a
    chemist removes otherwise).  The name is the ester's, for a reason ("ethyl ester", "secondary alkyl ester")."""
    if carbon.GetAtomicNum() != 6 or carbon.GetIsAromatic() or carbon.GetFormalCharge():
        return None
    oxo = acyl = alkoxy = None
    for bond in carbon.GetBonds():
        nb = bond.GetOtherAtom(carbon)
        if nb.GetAtomicNum() == 8 and bond.GetBondType() == Chem.BondType.DOUBLE:
            oxo = nb
        elif nb.GetAtomicNum() == 8 and bond.GetBondType() == Chem.BondType.SINGLE and nb.GetDegree() == 2:
            alkoxy = nb
        elif nb.GetAtomicNum() == 6 and bond.GetBondType() == Chem.BondType.SINGLE:
            acyl = nb
    if oxo is None or acyl is None or alkoxy is None or carbon.GetDegree() != 3:
        return None
    alkyl = next(a for a in alkoxy.GetNeighbors() if a.GetIdx() != carbon.GetIdx())
    if alkyl.GetAtomicNum() != 6 or carbon.GetOwningMol().GetBondBetweenAtoms(carbon.GetIdx(),
                                                                               alkoxy.GetIdx()).IsInRing():
        return None  # an O-silyl or other hetero ester, or a lactone
    if alkyl.GetIsAromatic():
        kind, simple, name = "aryl", False, "aryl ester"
    elif alkyl.GetHybridization() != Chem.HybridizationType.SP3:
        return None
    else:
        heavy = alkyl.GetDegree()
        if heavy > 3 or (heavy == 3 and not alkyl.GetTotalNumHs()):
            return None  # a tert-alkyl ester
        kind = {1: "methyl", 2: "primary", 3: "secondary"}[heavy]
        others = [a for a in alkyl.GetNeighbors() if a.GetIdx() != alkoxy.GetIdx()]
        simple = all(a.GetAtomicNum() == 6 and not a.GetIsAromatic()
                     and a.GetHybridization() == Chem.HybridizationType.SP3
                     and not any(b.GetAtomicNum() == 14 for b in a.GetNeighbors()) for a in others)
        if kind == "primary" and others[0].GetAtomicNum() == 6 and others[0].GetDegree() == 1:
            name = "ethyl ester"
        else:
            name = f"{kind} ester" if kind == "methyl" else f"{kind} alkyl ester"
    return _acyl_rank(acyl, carbon), kind, simple, name


def _acyl_rank(acyl: Chem.Atom, carbonyl: Chem.Atom) -> int:
    """How readily an ester's acyl group is attacked by hydroxide or water, by the carbon ``acyl`` that carries its
    ``carbonyl``: 3 for a CH3, a CH2, an sp carbon or an sp3 carbon bearing a heteroatom, nitrile or carbonyl
    (activated); 2 for a CH; 1 for a conjugated (aromatic or vinyl) carbon, 2 when an aromatic one sits next to a ring
    nitrogen (an azine-2- or azole-2-carboxylate); 0 for a quaternary sp3 carbon or an aryl carbon with substituents
    at both ortho positions."""
    if acyl.GetIsAromatic():
        if any(nb.GetAtomicNum() == 7 and nb.GetIsAromatic() for nb in acyl.GetNeighbors()):
            return 2
        mol = acyl.GetOwningMol()
        ortho = sum(1 for ring_nb in acyl.GetNeighbors() if ring_nb.GetIsAromatic()
                    for sub in ring_nb.GetNeighbors()
                    if sub.GetIdx() != acyl.GetIdx()
                    and not mol.GetBondBetweenAtoms(ring_nb.GetIdx(), sub.GetIdx()).IsInRing())
        return 0 if ortho >= 2 else 1
    hybrid = acyl.GetHybridization()
    if hybrid == Chem.HybridizationType.SP2:
        return 1
    if hybrid == Chem.HybridizationType.SP:
        return 3
    for nb in acyl.GetNeighbors():
        if nb.GetIdx() == carbonyl.GetIdx():
            continue
        if nb.GetAtomicNum() not in (1, 6) or any(
                b.GetBondType() in (Chem.BondType.DOUBLE, Chem.BondType.TRIPLE) and b.GetOtherAtom(nb).GetAtomicNum() in (7, 8)
                for b in nb.GetBonds()):
            return 3
    return {0: 0, 1: 2}.get(acyl.GetTotalNumHs(), 3)


def _competing_esters(reactants: Chem.Mol, rmap: dict[int, Chem.Atom],
                      pmap: dict[int, Chem.Atom]) -> list[tuple[int, int, str, str]]:
    """(reacting, kept acyl carbon map numbers, their ester names) of each ester that a step hydrolyses to the acid
    (a simple alkyl ester, :func:`_ester_parts`) while its molecule keeps another ester that base or acid hydrolyses
    first (so never a symmetry-equivalent one, mono-hydrolysed with one equivalent of base): an alkyl group no
    bulkier and an acyl group clearly more reactive (an acyl rank, :func:`_acyl_rank`, two above: an unhindered
    aliphatic ester beside an aryl or hindered one), or an acyl rank no lower and a smaller alkyl group (a methyl
    ester kept while an ethyl ester is hydrolysed); see ``competing_site``."""
    out: list[tuple[int, int, str, str]] = []
    for m, c in rmap.items():
        prod = pmap.get(m)
        if prod is None or not _carboxylic_acid(prod):
            continue
        parts = _ester_parts(c)
        if parts is None or not parts[2] or parts[1] == "aryl":
            continue
        for idx in _fragment_of(reactants, c.GetIdx()):
            twin = reactants.GetAtomWithIdx(idx)
            mt = twin.GetAtomMapNum()
            if idx == c.GetIdx() or not mt or mt not in pmap:
                continue
            kept = _ester_parts(twin)
            if kept is None or _ester_parts(pmap[mt]) != kept:
                continue  # not an ester, or not kept as the same ester
            alkyl_gain = _ALKOXY_RANK[kept[1]] - _ALKOXY_RANK[parts[1]]
            if alkyl_gain < 0 or (kept[0] - parts[0] < 2 and not (kept[0] >= parts[0] and alkyl_gain > 0)):
                continue  # the kept ester is bulkier, or its acyl group is not clearly the more reactive
            out.append((m, mt, parts[3], kept[3]))
            break
    return out


def _unprotected_c_acylations(reactants: Chem.Mol, rmap: dict[int, Chem.Atom], pmap: dict[int, Chem.Atom],
                               new: list[tuple[Chem.Atom, Chem.Atom]]) -> list[tuple[int, int, int, str]]:
    """(aromatic carbon, acyl carbon, kept nucleophile map numbers, its kind) of each aromatic C-H acylated by an acyl
    carbon of another molecule that loses a halide or an oxygen (an acid chloride, chloroformate, anhydride or acid
    in PPA) while the arene's molecule keeps a free primary or secondary alkyl amine or a primary or secondary
    alcohol (:func:`_nucleophile_kind`; see ``unprotected_c_acylation``).  Phenols and anilines are spared (a phenol
    is C-acylated through its Fries rearrangement, an aniline ortho by the Sugasawa reaction)."""
    out: list[tuple[int, int, int, str]] = []
    for x, y in new:
        for a, c in ((x, y), (y, x)):
            a_map, c_map = a.GetAtomMapNum(), c.GetAtomMapNum()
            a_react, c_react = rmap[a_map], rmap[c_map]
            if a.GetAtomicNum() != 6 or not a_react.GetIsAromatic() or a_react.GetTotalNumHs() <= a.GetTotalNumHs():
                continue  # not an aromatic C-H substituted (an azole N-H acylated is an N-acylation)
            if not _carbonyl_carbon(c_react) or not _carbonyl_carbon(c) or _same_fragment(reactants, a_react, c_react):
                continue
            if not any(nb.GetAtomicNum() in (8, 17, 35) for nb in _lost_neighbours(c_react, c)):
                continue  # the carbon loses no halide or oxygen: not an acylating agent
            for idx in _fragment_of(reactants, a_react.GetIdx()):
                atom = reactants.GetAtomWithIdx(idx)
                mk = atom.GetAtomMapNum()
                kind = _nucleophile_kind(atom) if atom.GetAtomicNum() in (7, 8) else None
                if kind is None or kind == "phenol" or not mk or mk not in pmap:
                    continue
                if pmap[mk].GetTotalNumHs() != atom.GetTotalNumHs() or _nucleophile_kind(pmap[mk]) != kind:
                    continue
                out.append((a_map, c_map, mk, kind.split(":")[0]))
                break
    return out


def _step_sides(mapped: str) -> tuple[Chem.Mol, Chem.Mol] | None:
    """The reactant and product sides of an atom-mapped ``reactants>>product``, the product's unmapped-group numbers
    adopted (:func:`_adopt_orphan_maps`); ``None`` without ``>>`` or when a side does not parse."""
    left, sep, right = (mapped or "").partition(">>")
    reactants, product = (_parse(left), _parse(right)) if sep else (None, None)
    if reactants is None or product is None:
        return None
    _adopt_orphan_maps(reactants, product)
    return reactants, product


def step_mechanism(mapped_reaction: str) -> list[dict[str, Any]]:
    """Mechanism flags of one atom-mapped step ``reactants>>product``: ``[{code, atoms, reason}]`` where
    ``atoms`` are the map numbers concerned: a new bond's two atoms (the nucleophilic carbon first for a carbanion,
    the aromatic carbon first for a substitution, the hydroxyl's carbon first for an acylation, the nitrogen for a
    stripped amine; the nucleophile, its partner and the kept group's first atom for ``electrophile_selectivity``)
    or a stereo flag's centres. Empty when nothing is flagged, when the reaction has no atom map, or when a side
    does not parse.  One entry is a note, not a flag: ``reagent_choice`` on a free acid alkylated at its alpha carbon
    (:data:`ACID_DIANION_TEXT`) and on an aryl or vinyl bromide or iodide made the organometallic beside a kept
    nitrile or ester (:data:`HALOGEN_EXCHANGE_TEXT`)."""
    sides = _step_sides(mapped_reaction)
    if sides is None:
        return []
    reactants, product = sides
    rmap, pmap = _mapped_atoms(reactants), _mapped_atoms(product)
    out: list[dict[str, Any]] = []
    new = _new_bonds(reactants, product, rmap)
    for mx, my in _cc_pairs(new):
        for a_map, b_map in ((mx, my), (my, mx)):
            a, b = rmap[a_map], rmap[b_map]
            loses_h = a.GetTotalNumHs() > pmap[a_map].GetTotalNumHs()
            if not loses_h or a.GetFormalCharge() != 0:
                continue
            if not a.GetIsAromatic() and a.GetHybridization() == Chem.HybridizationType.SP3:
                partner_loses_h = b.GetTotalNumHs() > pmap[b_map].GetTotalNumHs()
                arylation = (b.GetIsAromatic() and not partner_loses_h and _leaving_atom(b, pmap[b_map]) is not None
                             and not _snar_ring(reactants, b)[1])  # an aryl halide that no ring activates
                acetal = not b.GetIsAromatic() and _acetal_carbon(b, pmap[b_map])
                condensation = not acetal and _condensed_carbonyl(product, pmap, a_map, b)
                ketone = condensation and _ketone_carbon(b)
                ketene = any(_acyl_halide_carbon(nb) for nb in a.GetNeighbors() if nb.GetAtomMapNum() != b_map)
                if ketene:
                    activated = False
                elif arylation:
                    activated = _arylation_activated(reactants, a, b_map)
                elif acetal:
                    activated = _acetal_partner_activated(reactants, a, b_map)
                elif condensation:
                    activated = _condensation_activated(reactants, a, b_map, ketone) or _aromatic_anion(reactants, a)
                else:
                    activated = _activated(reactants, a, b_map, polar=not b.GetIsAromatic() and not partner_loses_h)
                bredt = not activated and a.IsInRing() and any(
                    kind in ("pi_hetero", "pi_carbon") and _bredt_violation(reactants, a, nb) is not None
                    for kind, nb in _alpha_neighbours(a, b_map))
                # an enol's step is spared (a published route alpha-methylenates 4-chlorobutyrophenone with
                # formaldehyde; a Fischer indole synthesis from 5-bromopentanal)
                closure = _own_halide_ring_closure(reactants, product, pmap, a) if activated and not \
                    _same_fragment(reactants, a, b) and not _via_enol(a, b, pmap[b_map]) else None
                if closure is not None:
                    mk, size, halide = closure
                    ring = "cyclopropane (3-exo-tet)" if size == 3 else "cyclopentane (5-exo-tet)"
                    out.append({"code": "electrophile_selectivity", "atoms": [a_map, b_map, mk],
                                "reason": MECHANISM_TEXT["electrophile_selectivity"].format(
                                    nucleophile=f"carbanion at atom {a_map} of {_marked(reactants, [a_map, mk])}",
                                    reacting=f"atom {b_map} of another molecule",
                                    kept=f"the alkyl {halide} of its own chain (atom {mk})",
                                    kept_short=f"alkyl {halide}",
                                    forms=f"an intramolecular S_N2 closes a {ring} first, as 4-chlorobutyronitrile "
                                          "gives cyclopropyl cyanide with base")})
                if activated and ketone and _diaryl_ketone_condensation(reactants, a, b, b_map):
                    out.append({"code": "diaryl_ketone_condensation", "atoms": [a_map, b_map],
                                "reason": MECHANISM_TEXT["diaryl_ketone_condensation"].format(
                                    ketone=f"atom {b_map} of {_marked(reactants, [b_map])}",
                                    atom=f"atom {a_map} of {_marked(reactants, [a_map])}")})
                if activated and not partner_loses_h and not b.GetIsAromatic() and not acetal \
                        and _leaves_alkyl(b, pmap[b_map]) and _free_acid_alpha_carbon(a, b_map):
                    out.append({"code": "reagent_choice", "atoms": [a_map, b_map],
                                "reason": ACID_DIANION_TEXT.format(atom=f"atom {a_map} of "
                                                                        f"{_marked(reactants, [a_map])}")})
                if not activated:
                    n_h = a.GetTotalNumHs()
                    label = (f"{a.GetSymbol()}{'H' if n_h else ''}{n_h if n_h > 1 else ''}, atom {a_map} of "
                             f"{_marked(reactants, [a_map])}")
                    out.append({"code": "unactivated_carbanion", "atoms": [a_map, b_map],
                                "reason": MECHANISM_TEXT["unactivated_carbanion"].format(atom=label)
                                + (_KETENE_TEXT if ketene else _ARYLATION_TEXT if arylation
                                   else _ACETAL_TEXT if acetal
                                   else _KETONE_CONDENSATION_TEXT if ketone
                                   else _CONDENSATION_TEXT if condensation else "")
                                + (_BREDT_TEXT if bredt else "")})
            elif a.GetIsAromatic() and not b.GetIsAromatic() and b.GetHybridization() == Chem.HybridizationType.SP3:
                if _leaves_alkyl(b, pmap[b_map]) and _free_aryl_amine(reactants, a.GetIdx()):
                    out.append({"code": "aniline_c_alkylation", "atoms": [a_map, b_map],
                                "reason": MECHANISM_TEXT["aniline_c_alkylation"]})
        for h_map, c_map in ((mx, my), (my, mx)):
            # an aryl or vinyl bromide or iodide made the organometallic partner of a carbonyl carbon beside a kept
            # nitrile or ester: a note on how to make it (halogen-magnesium exchange), not a flag
            h, c = rmap[h_map], rmap[c_map]
            leaving = _leaving_atom(h, pmap[h_map])
            if leaving is None or leaving.GetAtomicNum() not in (35, 53) \
                    or h.GetHybridization() != Chem.HybridizationType.SP2 or not _carbonyl_carbon(c) \
                    or not any(nb.GetAtomicNum() == 8 for nb in pmap[c_map].GetNeighbors()) \
                    or c.GetTotalNumHs() > pmap[c_map].GetTotalNumHs() or _carboxylic_acid(c):
                # an addition or an acylation keeps the carbonyl carbon's oxygen and hydrogens; a formate or
                # carboxylate carbon, a formaldehyde carbon oxidised, or one that loses its oxygen is another reaction
                continue
            groups = _exchange_tolerant_groups(reactants, product, h, c)
            if groups:
                named = " and ".join(groups)
                out.append({"code": "reagent_choice", "atoms": [h_map, c_map],
                            "reason": HALOGEN_EXCHANGE_TEXT.format(
                                halide=_label(h, leaving), atom=_marked(reactants, [h_map]), groups=named,
                                them="both" if len(groups) > 1 else "it")
                            + (_NHK_TEXT if _aldehyde_carbon(c) else "")})
        x, y = rmap[mx], rmap[my]
        x_out, y_out = _leaving_atom(x, pmap[mx]), _leaving_atom(y, pmap[my])
        if x_out is not None and y_out is not None and not _metallable(x, x_out) and not _metallable(y, y_out):
            pair = f"{_label(x, x_out)} and {_label(y, y_out)}"
            out.append({"code": "electrophile_coupling", "atoms": [mx, my],
                        "reason": MECHANISM_TEXT["electrophile_coupling"].format(pair=pair)})
        for mv, ma in ((mx, my), (my, mx)):
            # a vinyl C-H at an acceptor's beta-carbon joined to an acyl halide's carbon: two electrophiles as well
            v, acyl = rmap[mv], rmap[ma]
            if not (_acceptor_beta_carbon(v) and v.GetTotalNumHs() > pmap[mv].GetTotalNumHs()):
                continue
            leaving = _acyl_leaving(acyl, pmap[ma])
            if leaving is not None and not _same_fragment(reactants, v, acyl):
                out.append({"code": "electrophile_coupling", "atoms": [mv, ma],
                            "reason": _ACCEPTOR_ACYLATION_TEXT.format(
                                atom=f"atom {mv} of {_marked(reactants, [mv])}", partner=_label(acyl, leaving))})
    for x, y in new:
        for c, e in ((x, y), (y, x)):
            if c.GetAtomicNum() != 6:
                continue
            mc, me = c.GetAtomMapNum(), e.GetAtomMapNum()
            acyl = _acyl_halide(rmap[me], e)
            if acyl is None or _lost_hydroxyl(rmap[mc], c) is None:
                continue
            group, ester = acyl
            kind = "phenol" if rmap[mc].GetIsAromatic() else "alcohol"
            partner = f"a{'n' if group[0] in 'ai' else ''} {group} halide's {e.GetSymbol()} (atom {me})"
            out.append({"code": "alcohol_c_acylation", "atoms": [mc, me],
                        "reason": MECHANISM_TEXT["alcohol_c_acylation"].format(
                            partner=partner, atom=f"{kind}, atom {mc} of {_marked(reactants, [mc])}",
                            group=f"{group} group", ester=ester, instead=_ACYLATION_INSTEAD.get(group, ""))})
    for x, y in new:
        for c, e in ((x, y), (y, x)):
            if c.GetAtomicNum() != 6:
                continue
            hit = _halide_selectivity(reactants, product, pmap, rmap[c.GetAtomMapNum()], c, rmap[e.GetAtomMapNum()])
            if hit is None:
                site = _position_selectivity(reactants, product, pmap, rmap[c.GetAtomMapNum()], c,
                                             rmap[e.GetAtomMapNum()])
                hit = (*site, "position") if site is not None else None
            if hit is None:
                continue
            leaving, kept_c, kept, kind = hit
            mc, mk = c.GetAtomMapNum(), kept_c.GetAtomMapNum()
            out.append({"code": "halide_selectivity", "atoms": [mc, mk],
                        "reason": MECHANISM_TEXT["halide_selectivity"].format(
                            reacting=f"{_label(rmap[mc], leaving)} of {_marked(reactants, [mc, mk])}",
                            kept=_label(kept_c, kept), why=_HALIDE_WHY[kind])})
    for mc, leaving, kept_c, kept in _hydrodehalogenations(reactants, product, rmap, pmap, new):
        mk = kept_c.GetAtomMapNum()
        out.append({"code": "halide_selectivity", "atoms": [mc, mk],
                    "reason": MECHANISM_TEXT["halide_selectivity"].format(
                        reacting=f"{_label(rmap[mc], leaving)} of {_marked(reactants, [mc, mk])} with hydrogen",
                        kept=_label(kept_c, kept), why=_HALIDE_WHY["reduction"])})
    for x, y in new:
        for o, a in ((x, y), (y, x)):
            if o.GetAtomicNum() != 8 or a.GetAtomicNum() not in _OXIDISABLE:
                continue
            o_react, a_react = rmap[o.GetAtomMapNum()], rmap[a.GetAtomMapNum()]
            if _lost_neighbours(a_react, a) or _same_fragment(reactants, o_react, a_react):
                continue  # a substitution at the atom (hydrolysis), or an intramolecular oxygen
            source = _non_oxidant_source(reactants, o_react)
            if source is None:
                continue
            ma = a.GetAtomMapNum()
            out.append({"code": "oxidation_without_oxidant", "atoms": [ma, o.GetAtomMapNum()],
                        "reason": MECHANISM_TEXT["oxidation_without_oxidant"].format(
                            atom=f"the {a.GetSymbol()} at atom {ma} of {_marked(reactants, [ma])}",
                            source=source)})
    for mc, mn, ma, text in _unprotected_amino_acid(reactants, rmap, pmap, new):
        partner = f"atom {mn} of {_marked(reactants, [mn])}" if text == "unprotected_amino_acid_ester" else f"atom {mn}"
        out.append({"code": "unprotected_amino_acid", "atoms": [mc, mn, ma],
                    "reason": MECHANISM_TEXT[text].format(acid=f"atom {mc} of {_marked(reactants, [mc, ma])}",
                                                          amine=f"atom {ma}", partner=partner)})
    for x, y in new:
        for o, c in ((x, y), (y, x)):
            if o.GetAtomicNum() != 8 or c.GetAtomicNum() != 6:
                continue
            o_react, c_react = rmap[o.GetAtomMapNum()], rmap[c.GetAtomMapNum()]
            if not c_react.GetIsAromatic() or c_react.GetTotalNumHs() <= c.GetTotalNumHs():
                continue  # not an aromatic C-H substituted
            source = _peroxide_source(reactants, o_react)
            if source is None or _same_fragment(reactants, o_react, c_react):
                continue
            mc = c.GetAtomMapNum()
            out.append({"code": "arene_hydroxylation", "atoms": [mc, o.GetAtomMapNum()],
                        "reason": MECHANISM_TEXT["arene_hydroxylation"].format(
                            source=source, atom=f"atom {mc} of {_marked(reactants, [mc])}")})
    for x, y in new:
        for h in (x, y):
            if h.GetAtomicNum() not in _HALOGENS:
                continue
            solvent = _halogen_solvent(reactants, product, rmap[h.GetAtomMapNum()])
            if solvent is not None:
                mh = h.GetAtomMapNum()
                out.append({"code": "halogen_from_solvent", "atoms": [mh],
                            "reason": MECHANISM_TEXT["halogen_from_solvent"].format(
                                halogen=h.GetSymbol(), atom=mh, solvent=solvent)})
    for mn, me, mt, kind in _competing_sites(reactants, product, rmap, pmap, new):
        out.append({"code": "competing_site", "atoms": [mn, me, mt],
                    "reason": MECHANISM_TEXT["competing_site"].format(
                        kind=kind, reacting=f"atom {mn} of {_marked(reactants, [mn, mt])}", kept=f"atom {mt}")})
    for ma, mc, mk, kind in _unprotected_c_acylations(reactants, rmap, pmap, new):
        out.append({"code": "unprotected_c_acylation", "atoms": [ma, mc, mk],
                    "reason": MECHANISM_TEXT["unprotected_c_acylation"].format(
                        atom=f"atom {ma} of {_marked(reactants, [ma, mk])}", kind=kind, kept=f"atom {mk}")})
    for mc, mt, name, kept_name in _competing_esters(reactants, rmap, pmap):
        out.append({"code": "competing_site", "atoms": [mc, mt],
                    "reason": MECHANISM_TEXT["competing_ester"].format(
                        reacting=f"the {name} at atom {mc} of {_marked(reactants, [mc, mt])}",
                        kept=f"the {kept_name} at atom {mt}")})
    kept_strong: list[tuple[str, int]] = []
    if any(x.GetAtomicNum() in _STRONG_FORMS or y.GetAtomicNum() in _STRONG_FORMS for x, y in new):
        strong, kept_strong = _strong_electrophiles(reactants, product, rmap)
    for x, y in new if kept_strong else ():
        for n, e in ((x, y), (y, x)):
            mn, me = n.GetAtomMapNum(), e.GetAtomMapNum()
            sulfinate = _sulfinate_sulfur(rmap[mn], n, rmap[me])
            forms = _SULFINATE_FORMS if sulfinate else _STRONG_FORMS.get(n.GetAtomicNum())
            if forms is None or e.GetAtomicNum() != 6 or rmap[me].GetIdx() in strong:
                continue  # not an X-H nucleophile, not a carbon partner, or the partner is a strong one itself
            if _carboxylic_acid(rmap[me]):
                continue  # an acid is activated in situ, often as its acid chloride, which reacts first
            if not (sulfinate or _loses_proton(rmap[mn], n)) or _same_fragment(reactants, rmap[mn], rmap[me]):
                continue  # not a nucleophile here, or a ring closure (intramolecular, so far faster)
            hit = next(((name, mk) for name, mk in kept_strong if name in forms), None)
            if hit is None:
                continue
            name, mk = hit
            what = _nucleophile_name(rmap[mn], n)
            if sulfinate:
                what = ("sulfinate sulfur" if rmap[mn].GetDegree() == 3
                        else "sulfinate sulfur (the sulfonyl halide reduced in the same pot)")
            out.append({"code": "electrophile_selectivity", "atoms": [mn, me, mk],
                        "reason": MECHANISM_TEXT["electrophile_selectivity"].format(
                            nucleophile=f"{what} at atom {mn} of {_marked(reactants, [mn])}",
                            reacting=f"the carbon at atom {me} of {_marked(reactants, [me])}",
                            kept=f"{name} (atom {mk} of {_marked(product, [mk])})", kept_short=name.split(" ", 1)[1],
                            forms=f"{forms[name]} forms")})
    halo_kept = _alpha_halo_carbonyls_kept(reactants, product, rmap) if any(
        x.GetAtomicNum() in (7, 16) or y.GetAtomicNum() in (7, 16) for x, y in new) else []
    strong_atoms = _strong_electrophiles(reactants, product, rmap)[0] if halo_kept else set()
    for x, y in new if halo_kept else ():
        for n, e in ((x, y), (y, x)):
            mn, me = n.GetAtomMapNum(), e.GetAtomMapNum()
            n_react, e_react = rmap[mn], rmap[me]
            if n.GetAtomicNum() not in (7, 16) or e.GetAtomicNum() != 6 or not _loses_proton(n_react, n):
                continue  # not an N-H or S-H nucleophile on a carbon partner
            if any(nb.GetAtomicNum() in (7, 8) for nb in n_react.GetNeighbors()):
                continue  # a hydrazine or hydroxylamine (alpha-effect): its hydrazone or oxime forms first
            if _carboxylic_acid(e_react) or e_react.GetIdx() in strong_atoms:
                continue  # an acid (activated in situ) or an acyl halide, anhydride, isocyanate: they react first
            if _same_fragment(reactants, n_react, e_react):
                continue  # a ring closure (intramolecular, so far faster)
            hit = next(((c, mc, k) for c, mc, k in halo_kept if c != e_react.GetIdx()
                        and not _same_fragment(reactants, n_react, reactants.GetAtomWithIdx(c))), None)
            if hit is None:
                continue  # the nucleophile's own molecule (self_reactive's business), or the halide's carbon itself
            c, mk, k = hit
            what = _nucleophile_name(n_react, n)
            reacting = ("its carbonyl carbon" if e_react.GetIdx() == k else "the carbon")
            out.append({"code": "electrophile_selectivity", "atoms": [mn, me, mk],
                        "reason": MECHANISM_TEXT["electrophile_selectivity"].format(
                            nucleophile=f"{what} at atom {mn} of {_marked(reactants, [mn])}",
                            reacting=f"{reacting} at atom {me} of {_marked(reactants, [me, mk])}",
                            kept=f"an alpha-halo ketone's carbon-halogen bond (atom {mk})",
                            kept_short="alpha-halo ketone",
                            forms=f"the halide is displaced: an alpha-{'thio' if n.GetAtomicNum() == 16 else 'amino'} "
                                  "ketone forms")})
    for mn, me, mk, leaving in _azide_beside_kept_halides(reactants, product, rmap, new) if new else ():
        kind = "an alkyl sulfonate" if leaving == "sulfonate" else f"an alkyl {_HALIDE_NAMES[leaving]}"
        out.append({"code": "electrophile_selectivity", "atoms": [mn, me, mk],
                    "reason": MECHANISM_TEXT["electrophile_selectivity"].format(
                        nucleophile=f"azide at atom {mn}", reacting=f"the carbon at atom {me} of {_marked(reactants, [me, mk])}",
                        kept=f"{kind} (atom {mk})", kept_short=kind.split(" ", 1)[1],
                        forms="S_N2 at room temperature: the alkyl azide forms, while a tetrazole from a nitrile needs "
                              "100-130 C")})
    for mn, n_prod in pmap.items():
        n_react = rmap.get(mn)
        if n_react is None or n_react.GetAtomicNum() != 7 or n_react.GetIsAromatic():
            continue
        n_alkyl = _stripped_alkyls(n_react, n_prod)
        if n_alkyl:
            out.append({"code": "stripped_amine", "atoms": [mn],
                        "reason": MECHANISM_TEXT["stripped_amine"].format(
                            atom=f"atom {mn} of {_marked(reactants, [mn])}", n=n_alkyl)})
    for mc, mx in _aryl_heteroatom_pairs(new, rmap):
        carbon, nucleophile = rmap[mc], rmap[mx]
        leaving = _snar_leaving_group(carbon, pmap[mc])
        if leaving is None or _same_fragment(reactants, carbon, nucleophile):
            continue  # another leaving group, or a ring closure (an intramolecular substitution is far easier)
        para, anywhere, halogens, donor = _snar_ring(reactants, carbon)
        if para or (anywhere and leaving.GetAtomicNum() == 9):
            continue  # an ether leaves only from an ortho/para-activated ring (2,4-dinitroanisole); fluoride from any
        if leaving.GetAtomicNum() == 9:
            # alkoxides and thiolates do displace fluoride from a plain arene (duloxetine: 1-fluoronaphthalene,
            # atomoxetine: 2-fluorotoluene), not from an electron-rich one; amines need a halogen's help at least
            if nucleophile.GetAtomicNum() in (8, 16) and not donor:
                continue
            if nucleophile.GetAtomicNum() == 7 and halogens:
                continue
            group = "fluoride"
            why = ("no ring nitrogen or electron-withdrawing group, and an ether, amine or fused pyrrole/furan ring "
                   "makes it electron-rich") if donor else "no ring nitrogen, electron-withdrawing group or other halogen"
        else:
            group = "an alkoxy or aryloxy group"
            why = "no ring nitrogen, and no nitro, nitrile, carbonyl, sulfonyl or CF3 group ortho or para to it"
        out.append({"code": "unactivated_snar", "atoms": [mc, mx],
                    "reason": MECHANISM_TEXT["unactivated_snar"].format(
                        group=group, atom=f"atom {mc} of {_marked(reactants, [mc])}", why=why)})
    for order, sites, kind, pairs in _sear_sites(reactants, new, rmap).values():
        mc, me = pairs[0]
        if (ipso := _ipso_group(reactants, rmap[mc], pmap, kind)) is not None:
            out.append({"code": "ipso_substitution", "atoms": [mc, me, ipso[0]],
                        "reason": MECHANISM_TEXT["ipso_substitution"].format(
                            kind=kind, atom=f"atom {mc} of {_marked(reactants, [mc])}", group=ipso[1],
                            where=f"atom {ipso[0]} of {_marked(product, [ipso[0]])}", donor=ipso[2])})
        code, text, words = "aromatic_regiochemistry", None, {}
        if order is None:
            site = reactants.GetAtomWithIdx(next(iter(sites)))
            if (groups := _deactivated_azine(reactants, site, kind)) is not None:
                code, words["groups"] = "deactivated_arene", groups
                if kind.startswith("Friedel-Crafts"):
                    words["activation"] = "" if "donor" in groups else " and no activating group"
                else:  # a nitration or sulfonation of the protonated azine
                    text = "deactivated_azine"
            else:
                words["why"] = _naphthalene_verdict(reactants, site, kind, rmap[pairs[0][1]]) or \
                    _heteroaryl_verdict(reactants, site, kind)
        elif (groups := _deactivated_for_friedel_crafts(reactants, order, sites, kind)) is not None:
            code, words["groups"], words["activation"] = "deactivated_arene", groups, " and no activating group"
        else:
            words["why"] = _sear_verdict(reactants, order, sites, kind)
        if None not in words.values():
            out.append({"code": code, "atoms": [mc, me], "reason": MECHANISM_TEXT[text or code].format(
                kind=kind, atom=f"atom {mc} of {_marked(reactants, [mc])}", **words)})
    for mc, mn, kind in _amide_condensations(reactants, product, rmap, pmap, new):
        n_react = rmap[mn]
        nitrogen = ("amine" if n_react.GetTotalNumHs() else "nitrogen") + f" at atom {mn} of {_marked(reactants, [mn])}"
        out.append({"code": "amide_condensation", "atoms": [mc, mn],
                    "reason": MECHANISM_TEXT["amide_condensation"].format(
                        nitrogen=nitrogen, acyl=kind, atom=f"atom {mc} of {_marked(reactants, [mc])}")})
    for mc, mnu in _nh_amide_additions(reactants, product, rmap, new):
        out.append({"code": "amide_condensation", "atoms": [mc, mnu], "reason": _NH_AMIDE_ADDITION_TEXT.format(
            nucleophile=f"atom {mnu} of {_marked(reactants, [mnu])}", atom=f"atom {mc} of {_marked(reactants, [mc])}")})
    for mn, mc, kind, aldehyde in _amide_ketone_alkylations(reactants, rmap, new):
        text = MECHANISM_TEXT["amide_reductive_amination_aldehyde" if aldehyde else "amide_reductive_amination"]
        out.append({"code": "amide_reductive_amination", "atoms": [mn, mc],
                    "reason": text.format(
                        nitrogen=f"N-H of {kind} (atom {mn} of {_marked(reactants, [mn])})",
                        atom=f"atom {mc} of {_marked(reactants, [mc])}")})
    for mc, me, kind in _electron_poor_alkylations(reactants, new, rmap):
        out.append({"code": "destabilised_carbocation", "atoms": [mc, me],
                    "reason": MECHANISM_TEXT["destabilised_carbocation"].format(
                        atom=f"atom {mc} of {_marked(reactants, [mc])}",
                        carbon=f"atom {me} of {_marked(reactants, [me])}", acceptor=kind)})
    for mc, me, mb in _rearranging_alkylations(reactants, new, rmap):
        out.append({"code": "carbocation_rearrangement", "atoms": [mc, me],
                    "reason": MECHANISM_TEXT["carbocation_rearrangement"].format(
                        atom=f"atom {mc} of {_marked(reactants, [mc])}",
                        carbon=f"atom {me} of {_marked(reactants, [me])}", beta=f"atom {mb}" if mb else "its neighbour")})
    for mc, mh, mn, kind in _benzylic_halogenations(reactants, product, rmap, pmap, new) if new else ():
        out.append({"code": "benzylic_halogenation", "atoms": [mc, mh, mn],
                    "reason": MECHANISM_TEXT["benzylic_halogenation"].format(
                        atom=f"atom {mc} of {_marked(reactants, [mc, mn])}",
                        amine=f"a free {kind} (atom {mn})", why=_BENZYLIC_HALOGENATION_WHY[kind])})
    for mn, mc, mx in _mustard_nucleophiles(reactants, pmap, rmap, new) if new else ():
        out.append({"code": "mustard_nucleophile", "atoms": [mn, mc, mx],
                    "reason": MECHANISM_TEXT["mustard_nucleophile"].format(
                        atom=f"atom {mn} of {_marked(reactants, [mn, mx])}",
                        partner=f"atom {mc} of {_marked(reactants, [mc])}",
                        kept=f"the halogen at atom {mx}")})
    for mc, mm in _carried_organometallics(reactants, product, rmap):
        out.append({"code": "organometallic_carried", "atoms": [mc, mm],
                    "reason": MECHANISM_TEXT["organometallic_carried"].format(
                        metal=Chem.GetPeriodicTable().GetElementSymbol(rmap[mm].GetAtomicNum()),
                        atom=f"atom {mc} of {_marked(reactants, [mc])}")})
    centres = _unsourced_centres(reactants, product, rmap)
    if centres:
        label = ("the stereocentre at atom " if len(centres) == 1 else "the stereocentres at atoms ") + \
            ", ".join(map(str, centres)) + f" of {_marked(product, centres)}"
        out.append({"code": "unsourced_stereocentre", "atoms": centres,
                    "reason": MECHANISM_TEXT["unsourced_stereocentre"].format(centres=label)})
    alkene = _unsourced_alkene_geometry(reactants, product, rmap)
    if alkene:
        out.append({"code": "unsourced_alkene_geometry", "atoms": alkene,
                    "reason": MECHANISM_TEXT["unsourced_alkene_geometry"].format(
                        bond=f"atoms {alkene[0]} and {alkene[1]} of {_marked(product, alkene)}")})
    return out


def _fragment(mol: Chem.Mol, atoms: tuple[int, ...]) -> Chem.Mol:
    """The molecule of ``mol`` made of ``atoms`` (a whole fragment), without atom maps; its atoms keep their order."""
    frag = Chem.RWMol(strip_atom_maps(mol))
    for idx in sorted(set(range(mol.GetNumAtoms())) - set(atoms), reverse=True):
        frag.RemoveAtom(idx)
    return frag.GetMol()


def _canonical(smiles: str) -> str | None:
    mol = _parse(smiles)
    return map_free_smiles(mol) if mol is not None else None


def _ring_system(mol: Chem.Mol, idx: int) -> set[int]:
    """The atoms of the fused ring system through atom ``idx`` (the atom alone when it is in no ring)."""
    rings = [set(ring) for ring in mol.GetRingInfo().AtomRings()]
    system = {idx}
    grown = True
    while grown:
        grown = False
        for ring in rings:
            if ring & system and not ring <= system:
                system |= ring
                grown = True
    return system


#: Atoms a cross-coupling, a metal exchange or an S_N_Ar replaces on a ring carbon (ipso substitution): a halogen,
#: boron, tin, zinc, magnesium or lithium (an oxygen only as a sulfonate's, :func:`_ipso_leaving`).
_IPSO_LEAVING = _ALL_HALOGENS | {5, 50, 30, 12, 3}


def _ipso_leaving(atom: Chem.Atom) -> bool:
    """Whether ``atom`` (on a ring carbon) is a group an ipso substitution replaces (:data:`_IPSO_LEAVING`, or the
    oxygen of a sulfonate such as a triflate)."""
    return atom.GetAtomicNum() in _IPSO_LEAVING or _sulfonate_oxygen(atom)


def _ring_unchanged(rmap: dict[int, Chem.Atom], product: Chem.Mol, carbon: Chem.Atom, swap: bool = False) -> bool:
    """Whether every atom of the product's fused ring system through ``carbon`` keeps its mapped neighbours in the
    step (``rmap``: the reactants' atoms by map number; no substitution on those rings: a halogen there directed or
    blocked nothing the step did).  Another ring carbon whose leaving group (:func:`_ipso_leaving`) the step replaces
    (a cross-coupling at a second halide, an S_N_Ar) counts as unchanged: the reaction went where that leaving group
    was, so the carried halogen blocked or directed nothing (naproxen's first route of 2026-12-06: a Negishi coupling
    at the 6-bromide of 1,6-dibromo-2-methoxynaphthalene, the 1-bromide carried to the last step and removed).  With
    ``swap``, ``carbon`` itself may trade one neighbour for another (a Sandmeyer reaction at that carbon)."""
    for idx in _ring_system(product, carbon.GetIdx()):
        atom = product.GetAtomWithIdx(idx)
        m = atom.GetAtomMapNum()
        if not m or m not in rmap:
            return False
        before = {nb.GetAtomMapNum() for nb in rmap[m].GetNeighbors()}
        after = {nb.GetAtomMapNum() for nb in atom.GetNeighbors()}
        if 0 in before or 0 in after:
            return False
        if before == after:
            continue
        if idx == carbon.GetIdx():
            if not (swap and len(before - after) == 1 and len(after - before) == 1):
                return False
        elif not _ipso_substitution(rmap[m], before, after):
            return False
    return True


def _ipso_substitution(reactant_atom: Chem.Atom, before: set[int], after: set[int]) -> bool:
    """Whether a ring atom's change of neighbours (map numbers ``before`` -> ``after``) is one leaving group
    (:func:`_ipso_leaving`) replaced by one new neighbour."""
    lost, gained = before - after, after - before
    if len(lost) != 1 or len(gained) > 1:
        return False
    (m,) = lost
    leaving = next((nb for nb in reactant_atom.GetNeighbors() if nb.GetAtomMapNum() == m), None)
    return leaving is not None and _ipso_leaving(leaving)


#: What :func:`carried_groups` calls the atom a route removes: a halogen, or the first atom of an oxygen or nitrogen
#: group on an aromatic carbon (a phenol deoxygenated, an aniline deaminated).
_CARRIED_NAME = {17: "chlorine", 35: "bromine", 53: "iodine", 8: "oxygen group (hydroxy, alkoxy or sulfonate)",
                 7: "nitrogen group (amino or nitro)"}


def _route_sides(steps: list[tuple[str, list[str], str]]
                 ) -> tuple[dict[str, int], list[tuple[Chem.Mol, Chem.Mol] | None]]:
    """The index of the first step that makes each product (by canonical SMILES) and each step's parsed mapped sides
    (``None``: no map), for the route-level checks."""
    made: dict[str, int] = {}
    for i, (product, _reactants, _mapped) in enumerate(steps):
        key = _canonical(product)
        if key:
            made.setdefault(key, i)
    return made, [_step_sides(mapped) for _p, _r, mapped in steps]


def _in_maker(mol: Chem.Mol, x_idx: int, c_idx: int, sides: list[tuple[Chem.Mol, Chem.Mol] | None],
              made: dict[str, int]
              ) -> tuple[str | None, int | None, tuple[Chem.Mol, Chem.Mol, Chem.Atom, Chem.Atom] | None]:
    """The molecule of ``mol`` that holds atom ``x_idx``, in the step that makes it: its canonical SMILES, that step's
    index (``None``: no step makes it) and, when the step has a map and its product matches the molecule, (the
    step's reactant and product sides, the product's atoms at ``x_idx`` and ``c_idx``)."""
    fragment = _fragment_of(mol, x_idx)
    query = _fragment(mol, fragment)
    smiles = _canonical(Chem.MolToSmiles(query))
    maker = made.get(smiles or "")
    if maker is None or sides[maker] is None:
        return smiles, maker, None
    reactants, product = sides[maker]
    order = sorted(fragment)
    match = strip_atom_maps(product).GetSubstructMatch(query)
    if not match:
        return smiles, maker, None
    return smiles, maker, (reactants, product, product.GetAtomWithIdx(match[order.index(x_idx)]),
                           product.GetAtomWithIdx(match[order.index(c_idx)]))


def carried_groups(steps: list[tuple[str, list[str], str]]) -> list[dict[str, Any]]:
    """Groups a route carries from a bought starting material through one or more steps only to remove them.

    ``steps``: the route's reactions as ``(product SMILES, reactant SMILES, atom-mapped "reactants>>product")``, any
    order.  For each step that trades a chlorine, bromine or iodine on a carbon, or an oxygen or nitrogen substituent
    on an aromatic carbon, for a hydrogen (:func:`_reduced_off`: a dehalogenation, a phenol deoxygenated, an aniline
    deaminated) on a molecule the route makes, the removed atom is followed back through the steps that made it, by
    the atom maps of each step (a molecule's atoms in two steps are matched as substructures): when it reaches a
    starting material without any step having formed its bond, changed the group itself or changed the fused ring
    system it sits on (a blocking group, or a handle that directed a substitution, changes that ring), the group did
    nothing but be removed, and the starting material without it is what a chemist would buy.  Returned: ``{step, group, leaf, carried}`` per case (``step``: index in
    ``steps`` of the removal; ``carried``: the steps the group rode through).  Steps without a map, or whose maps do
    not reach, are not judged."""
    made, sides = _route_sides(steps)
    out: list[dict[str, Any]] = []
    for i, (reactants, product) in ((i, side) for i, side in enumerate(sides) if side is not None):
        rmap, pmap = _mapped_atoms(reactants), _mapped_atoms(product)
        new = _new_bonds(reactants, product, rmap)
        for mc, removed in _reduced_off(rmap, pmap, new, frozenset(_CARRIED_NAME)):
            if removed.GetAtomicNum() in (7, 8) and not rmap[mc].GetIsAromatic():
                continue  # an alcohol, ester or ketone carbon reduced: functional-group work, not a removed group
            hit = _trace_to_leaf(reactants, removed.GetIdx(), rmap[mc].GetIdx(), sides, made)
            if hit is not None:
                out.append({"step": i, "group": _CARRIED_NAME.get(hit[2], _CARRIED_NAME[removed.GetAtomicNum()]),
                            "leaf": hit[0], "carried": hit[1]})
    return out


def _replaced_group(c_react: Chem.Atom, c_prod: Chem.Atom) -> Chem.Atom | None:
    """The one nitrogen, oxygen or halogen neighbour that carbon ``c_react`` loses in a step that bonds another group
    to it (``c_prod``: the carbon in the product), as a Sandmeyer reaction replaces an aniline's nitrogen or a
    halogen exchange another halogen; ``None`` when it loses none, or more than one neighbour."""
    lost = _lost_neighbours(c_react, c_prod)
    if len(lost) != 1 or lost[0].GetAtomicNum() not in _CARRIED_NAME:
        return None
    return lost[0]


def _bonded_elsewhere(x_react: Chem.Atom, x_prod: Chem.Atom) -> bool:
    """Whether group atom ``x_prod`` has a heavy neighbour in the product that ``x_react`` did not have (the group
    was acylated, sulfonylated, alkylated or coupled: it was used), rather than only losing neighbours or gaining
    hydrogens (a nitro group reduced to the amine, a methyl ether cleaved)."""
    before = {nb.GetAtomMapNum() for nb in x_react.GetNeighbors()}
    return any(nb.GetAtomMapNum() not in before or not nb.GetAtomMapNum() for nb in x_prod.GetNeighbors())


def _trace_to_leaf(mol: Chem.Mol, x_idx: int, c_idx: int, sides: list[tuple[Chem.Mol, Chem.Mol] | None],
                   made: dict[str, int]) -> tuple[str, int, int] | None:
    """(the starting material's SMILES, steps carried, the atomic number of its group's first atom) when the atom at
    ``x_idx`` of ``mol`` (a step's reactant side), on the carbon at ``c_idx``, came from a starting material through
    at least one step without being used (see :func:`carried_groups`).  Steps that only interconvert the group at
    its carbon (a nitro group reduced to the amine, that amine replaced by a halogen in a Sandmeyer reaction) are
    followed too, so long as nothing else on the group's ring changes, when one of them replaced the group on its
    carbon: riluzole's first route of 2026-12-07 reduced the nitro group of its starting material, replaced the amine
    by chlorine and removed the chlorine.  A group only reduced or cleaved before its removal (a nitro group reduced
    and the amine removed: two published PaRoutes n1 routes do that) is not reported."""
    carried = 0
    changed = swapped = False
    for _ in range(len(sides)):  # a route has no cycle; the bound only guards against a malformed one
        smiles, maker, hit = _in_maker(mol, x_idx, c_idx, sides, made)
        if maker is None:
            if not carried or not smiles or (changed and not swapped):
                return None
            return smiles, carried, mol.GetAtomWithIdx(x_idx).GetAtomicNum()
        if hit is None:
            return None
        reactants, product, x_prod, carbon = hit
        mx, mc = x_prod.GetAtomMapNum(), carbon.GetAtomMapNum()
        rmap = _mapped_atoms(reactants)
        if not mx or not mc or mx not in rmap or mc not in rmap:
            return None
        x_react, c_react = rmap[mx], rmap[mc]
        if reactants.GetBondBetweenAtoms(x_react.GetIdx(), c_react.GetIdx()) is None:
            # the step put the group there: followed on when it replaced another group on the same carbon
            x_react = _replaced_group(c_react, carbon)
            if x_react is None or not _ring_unchanged(rmap, product, carbon, swap=True):
                return None
            swapped = True
        elif {nb.GetAtomMapNum() for nb in x_react.GetNeighbors()} != {nb.GetAtomMapNum() for nb in x_prod.GetNeighbors()} \
                or x_react.GetTotalNumHs() != x_prod.GetTotalNumHs():
            if _bonded_elsewhere(x_react, x_prod):
                return None  # the step bonded the group to something (an aniline acylated, a phenol triflated): used
            if not _ring_unchanged(rmap, product, carbon):
                return None
            changed = True
        elif not _ring_unchanged(rmap, product, carbon):
            return None  # the step substituted the halogen's ring (or the carbon itself)
        mol, x_idx, c_idx, carried = reactants, x_react.GetIdx(), c_react.GetIdx(), carried + 1
    return None


def amine_round_trips(steps: list[tuple[str, list[str], str]]) -> list[dict[str, Any]]:
    """Aryl nitrogens a route takes off only to put a nitrogen back on the same carbon.

    ``steps`` as for :func:`carried_groups`.  For each step that bonds a nitrogen to a benzene-ring carbon in place of
    a halogen or sulfonate (a Buchwald-Hartwig, Ullmann or S_N_Ar amination), the leaving atom is followed back through
    the steps that made its molecule (atom maps; a molecule's atoms in two steps matched as substructures) to the step
    that bonded it to that carbon.  When that step took a nitrogen off the same carbon (a Sandmeyer or other
    diazonium replacement of an aniline), the route goes C-N -> C-X -> C-N: the new nitrogen group is usually built on
    the aniline itself (through its isothiocyanate, thiourea, hydrazine or an N-alkylation), which saves the detour
    (clonidine's first route of 2026-12-06: 2,6-dichloroaniline brominated by Sandmeyer, then the bromide coupled with
    2-amino-2-imidazoline).  A heteroaryl carbon (a pyridine's, a pyrimidine's) is not judged: a heteroaryl amine is a
    poor nucleophile that alkylates on its ring nitrogen, so its Sandmeyer halide's substitution is the usual way in
    (4 of the 5 published PaRoutes n5 routes that would otherwise be flagged).  Returned: ``{step, made, carbon}``
    per case (``step``: index in ``steps`` of the amination, ``made``: of the deamination, ``carbon``: the
    amination's map number of the carbon).  Maps that do not reach leave a step unjudged."""
    made, sides = _route_sides(steps)
    out: list[dict[str, Any]] = []
    for i, (reactants, product) in ((i, side) for i, side in enumerate(sides) if side is not None):
        rmap = _mapped_atoms(reactants)
        for x, y in _new_bonds(reactants, product, rmap):
            for c_prod, n_prod in ((x, y), (y, x)):
                if c_prod.GetAtomicNum() != 6 or not c_prod.GetIsAromatic() or n_prod.GetAtomicNum() != 7 \
                        or _six_ring(product, c_prod, carbocyclic=True) is None:
                    continue  # a heteroaryl amine is a poor nucleophile: its halide's substitution is the usual way
                mc = c_prod.GetAtomMapNum()
                leaving = _leaving_atom(rmap[mc], c_prod)
                if leaving is None:
                    continue
                maker = _bonding_step(reactants, leaving.GetIdx(), rmap[mc].GetIdx(), sides, made)
                if maker is not None and maker[1] == 7:
                    out.append({"step": i, "made": maker[0], "carbon": mc})
    return out


def _bonding_step(mol: Chem.Mol, x_idx: int, c_idx: int, sides: list[tuple[Chem.Mol, Chem.Mol] | None],
                  made: dict[str, int]) -> tuple[int, int] | None:
    """(index of the step that bonded the atom at ``x_idx`` of ``mol`` (a step's reactant side) to the carbon at
    ``c_idx``, atomic number of the neighbour that carbon lost in that step, or 0) when the chain of steps that made
    its molecule reaches such a step; ``None`` when the bond came from a starting material or the maps do not reach."""
    for _ in range(len(sides)):  # a route has no cycle; the bound only guards against a malformed one
        _smiles, maker, hit = _in_maker(mol, x_idx, c_idx, sides, made)
        if hit is None:
            return None
        reactants, _product, x_prod, carbon = hit
        mx, mc = x_prod.GetAtomMapNum(), carbon.GetAtomMapNum()
        rmap = _mapped_atoms(reactants)
        if not mc or mc not in rmap:
            return None
        c_react = rmap[mc]
        if not mx or mx not in rmap or reactants.GetBondBetweenAtoms(rmap[mx].GetIdx(), c_react.GetIdx()) is None:
            lost = _lost_neighbours(c_react, carbon)
            return maker, (lost[0].GetAtomicNum() if len(lost) == 1 else 0)
        mol, x_idx, c_idx = reactants, rmap[mx].GetIdx(), c_react.GetIdx()
    return None


__all__ = ["MECHANISM_TEXT", "MIN_RING", "SELF_CONDENSING_CARBONYLS", "SELF_REACTIVE_ELECTROPHILES",
           "SELF_REACTIVE_NUCLEOPHILES", "SELF_REACTIVE_OXY_NUCLEOPHILES", "amine_round_trips", "aromatic_substitutions",
           "self_reactive", "carried_groups", "step_mechanism", "strained_ring", "unisolable", "unstable_group"]
