"""The act that governs a plain question, from the domain graph: named with the part of it that deals with the
question's area, whether or not the collection holds it."""

import pytest

from serving.query.governing import governing_acts
from serving.ranking.bundle_lists import names_something


@pytest.mark.parametrize(
    "question, citation, area, section",
    [
        ("Jak dlouhá může být zkušební doba?", "262/2006 Sb.", "domain:zkusebni-doba", 35),
        ("jak dlouha muze byt zkusebni doba", "262/2006 Sb.", "domain:zkusebni-doba", 35),  # typed plainly
        ("Do kdy můžu reklamovat vadu zboží?", "89/2012 Sb.", "domain:kupni-smlouva", 2099),
        ("Kdo dědí, když není závěť?", "89/2012 Sb.", "domain:dedicke-tridy", 1633),
        ("Jaký trest hrozí za krádež v obchodě?", "40/2009 Sb.", "domain:kradez", 205),
        ("Kolik je sazba DPH na potraviny?", "235/2004 Sb.", "domain:dph", None),
        ("povinne ruceni auto", "30/2024 Sb.", "domain:povinne-ruceni", None),
        ("overeni podpisu na poste", "21/2006 Sb.", "domain:overovani", None),
        ("Cestovka mi zrušila zájezd, vrátí mi peníze?", "89/2012 Sb.", "domain:zajezd", 2537),
        ("Pojišťovna mi nechce vyplatit pojistné plnění za vytopený byt", "89/2012 Sb.", "domain:pojisteni", 2758),
        ("Sousedovi přesahují větve přes plot, můžu je uříznout?", "89/2012 Sb.", "domain:sousedska-prava", 1016),
    ],
)
def test_the_governing_act_and_its_part(question, citation, area, section):
    act = governing_acts(question)[0]
    assert (act.citation, act.area) == (citation, area)
    assert act.covers(section) if section else not act.sections
    assert not act.covers(1)


@pytest.mark.parametrize(
    "question, citation",
    [
        # areas whose act the collection lacks, asked as people ask (with and without diacritics)
        ("Kolik minimálně platí živnostník na sociálním pojištění?", "589/1992 Sb."),
        ("kdo mi plati zdravotni pojisteni kdyz jsem nezamestnany", "48/1997 Sb."),
        ("Proplatí zdravotní pojišťovna dítěti rovnátka?", "48/1997 Sb."),
        ("V kolika letech můžu odejít do předčasného důchodu?", "155/1995 Sb."),
        ("Jak dlouho se pobírá mateřská?", "187/2006 Sb."),
        ("jak dlouho muzu cerpat rodicovsky prispevek", "117/1995 Sb."),
        ("Musím platit silniční daň za auto?", "16/1993 Sb."),
        ("Jak vysoká je spotřební daň z cigaret?", "353/2003 Sb."),
        ("Kolik může banka chtít za předčasné splacení spotřebitelského úvěru?", "257/2016 Sb."),
        ("Jak dlouho trvá osobní bankrot?", "182/2006 Sb."),
        ("Kolik bodů dostanu za jízdu na červenou?", "361/2000 Sb."),
        ("Jak často musí auto na technickou kontrolu?", "56/2001 Sb."),
        ("Potřebuju dálniční známku i na motorku?", "13/1997 Sb."),
        ("je posledni rok ve skolce povinny", "561/2004 Sb."),
        ("Může myslivec zastřelit psa, který se toulá v lese?", "449/2001 Sb."),
        ("Musím nahlásit ztrátu občanky?", "269/2021 Sb."),
        ("Co potřebuje cizinec k získání trvalého pobytu?", "326/1999 Sb."),
        ("jak si zmenim trvale bydliste", "133/2000 Sb."),
        ("Může mi lékař odmítnout dát kopii zdravotní dokumentace?", "372/2011 Sb."),
        ("Smí se kouřit na zastávce autobusu?", "65/2017 Sb."),
        ("Jak vypovědět smlouvu s mobilním operátorem?", "127/2005 Sb."),
        ("Musí mi obchodník vydat doklad o zakoupení zboží?", "634/1992 Sb."),
        ("Kdy se promlčí přestupek?", "250/2016 Sb."),
        ("Kolik je záloha na zdravotní pojištění pro OSVČ?", "592/1992 Sb."),
        ("Jak přepsat auto na nového majitele?", "56/2001 Sb."),
        ("Jak omluvit dítě ze školy?", "561/2004 Sb."),
        ("Jak napsat petici?", "85/1990 Sb."),
        ("Jak získat zpět pozemky zabavené komunisty v restituci?", "229/1991 Sb."),
        ("Kdo má nárok na restituci domu znárodněného v roce 1948?", "87/1991 Sb."),
        ("kolik staly cirkevni restituce", "428/2012 Sb."),
        ("Jak si zaregistrovat ochrannou známku?", "441/2003 Sb."),
        ("jak si nechat patentovat vynalez", "527/1990 Sb."),
        ("Jak se stát soudním znalcem?", "254/2019 Sb."),  # the act itself, not its 2025 amendment
        ("Je mediace při rozvodu povinná?", "202/2012 Sb."),
        ("Platí rozhodčí doložka ve smlouvě o půjčce?", "216/1994 Sb."),
        ("Musím zapsat skutečného majitele s.r.o.?", "37/2021 Sb."),
        # areas whose act it holds
        ("Jakou pokutu můžu dostat za rušení nočního klidu?", "251/2016 Sb."),
        ("Jak můžu volit mimo místo, kde mám trvalý pobyt?", "88/2024 Sb."),
        ("Co potřebuju k ohlášení řemeslné živnosti?", "455/1991 Sb."),
    ],
)
def test_the_act_governing_a_lay_question(question, citation):
    assert governing_acts(question)[0].citation == citation


@pytest.mark.parametrize(
    "question, citation",
    [
        # everyday topics of their own areas (issue 34), asked with and without diacritics
        ("Chodí mi reklamní e-maily, i když jsem se odhlásil z newsletteru", "480/2004 Sb."),
        ("Musí mít živnostník zřízenou datovou schránku?", "300/2008 Sb."),
        ("Kolik je soudní poplatek za odvolání?", "549/1991 Sb."),
        ("kdo schvaluje rozpoctove opatreni v obci", "250/2000 Sb."),
        ("Do kolika let se na mě vztahuje branná povinnost?", "585/2004 Sb."),
        ("musi byt kocka cipovana", "166/1999 Sb."),
        ("Kam nahlásit, že soused týrá koně?", "246/1992 Sb."),
        ("Na jak dlouho se pronajímá hrobové místo?", "256/2001 Sb."),
        ("Kam s nebezpečným odpadem z garáže?", "541/2020 Sb."),
        ("smim palit travu na zahrade", "201/2012 Sb."),
        ("Potřebuju povolení k vrtané studně?", "254/2001 Sb."),
        ("Můžu pokácet starou lípu u domu bez povolení?", "114/1992 Sb."),
        ("Smím jezdit na kole po lesní cestě?", "289/1995 Sb."),
        ("Musím se policistovi prokázat totožností, když mě chce legitimovat?", "273/2008 Sb."),
        ("Může strážník nasadit autu botičku?", "553/1991 Sb."),
        ("Musí se demonstrace předem ohlásit?", "84/1990 Sb."),
        ("Jak dlouho platí e-recept v lékárně?", "378/2007 Sb."),
        ("Kdo platí vstupní lékařskou prohlídku?", "373/2011 Sb."),
        ("Kolik dává stát jako státní příspěvek na penzijní spoření?", "427/2011 Sb."),
        ("Kdy můžu vybrat peníze ze stavebního spoření bez ztráty státní podpory?", "96/1993 Sb."),
        ("Kde získám výpis z obchodního rejstříku a kolik stojí?", "304/2013 Sb."),
        ("Jakou odměnu dostává pěstoun?", "359/1999 Sb."),
        ("Kde smím létat s dronem?", "49/1997 Sb."),
        ("jak podat trestni oznameni", "141/1961 Sb."),
        ("Jak dlouho se rozhoduje o žádosti o azyl?", "325/1999 Sb."),
        ("Kolik stojí výpis z rejstříku trestů?", "269/1994 Sb."),
        ("Jaký je správní poplatek za vydání řidičáku?", "634/2004 Sb."),
        ("musim platit koncesionarske poplatky kdyz nemam televizi", "348/2005 Sb."),
        ("Kdo určuje cenu vodného a stočného?", "274/2001 Sb."),
        ("Kdo má nárok na příspěvek na mobilitu?", "329/2011 Sb."),
        ("Může škola žáka vyloučit za záškoláctví?", "561/2004 Sb."),
        ("Dostanu placené volno na pohřeb babičky?", "262/2006 Sb."),
        # one distinctive word in a case the stemmer leaves apart (k ~ c, h ~ z before the ending)
        ("jak dlouho muzu byt na neschopence", "187/2006 Sb."),
        # a word of the procedure code left to the act the area is about
        ("Co může exekutor zabavit?", "120/2001 Sb."),
        ("Musím danit zisk z prodeje bytu?", "586/1992 Sb."),
        ("Dostal jsem výpověď. Kolik měsíců je výpovědní doba?", "262/2006 Sb."),  # a second sentence names no one
        ("Kolik je soudní poplatek za žalobu na 20 000 Kč?", "549/1991 Sb."),  # nor does an amount in Kč
        # held acts keep their areas
        ("Jak si založit živnost?", "455/1991 Sb."),
        ("Musí zaměstnavatel přispívat na spoření na stáří lidem v rizikové práci?", "324/2025 Sb."),
        ("Jaký trest hrozí za napadení policisty?", "40/2009 Sb."),
    ],
)
def test_the_act_governing_an_everyday_topic(question, citation):
    assert governing_acts(question)[0].citation == citation


@pytest.mark.parametrize(
    "question",
    [
        "Je trestné nalít dítěti alkohol?",  # the criminal code's, not the act on addictive substances
        "Kdy musím zaplatit cenu za dílo podle smlouvy o dílo?",  # a contract for work, not copyright
        "Může soused sázet stromy hned u hranice mého pozemku?",  # planting, not betting
        "Kdo vyhrál poptávkové řízení na radarové ukazatele rychlosti?",
        "Kdo platí znalečné v trestním řízení?",  # the criminal procedure's, not the experts' act
        "Jak se rozvést?",  # divorce, not mediation
    ],
)
def test_a_word_shared_with_another_area_names_no_act_of_that_area(question):
    wrong = {"65/2017 Sb.", "121/2000 Sb.", "186/2016 Sb.", "361/2000 Sb.", "254/2019 Sb.", "202/2012 Sb."}
    assert not wrong & {a.citation for a in governing_acts(question)}


def test_a_wide_area_gives_way_to_its_own_part_that_matched_the_same_words():
    # "sociální pojištění" names social security and its premiums alike: the premiums' act, not the monthly report's
    acts = governing_acts("Kolik se platí na sociálním pojištění?")
    assert [a.area for a in acts] == ["domain:pojistne-socialni"]


def test_an_amending_act_never_governs_and_nothing_is_named_for_a_vague_question():
    acts = governing_acts("Jaká je výpovědní doba u pracovního poměru?")
    assert [a.citation for a in acts] == ["262/2006 Sb."]  # not its amendment 120/2025 Sb.
    assert governing_acts("Kdo vyhrál poptávkové řízení na radarové ukazatele rychlosti?") == []


@pytest.mark.parametrize(
    "query, particular",
    [
        ("stipendium od města Kadaň", True),
        ("Pronájem prostor na Mírovém náměstí", True),
        ("Jaká je sazba DPH?", False),  # an abbreviation is not a name
        ("Jak dlouhá je zkušební doba", False),
        ("Dostal jsem výpověď. Jak dlouhá je výpovědní doba?", False),  # a sentence opens with a capital
        ("Zaplatil jsem 500 Kč za psa", False),  # the currency is no name
        ("zaplatil jsem 500 Kc za psa", False),
        ("Bydlím v Kadani. Kdo opravuje silnice?", True),
        ("jak se stát občanem České republiky", False),  # the state's name, capitalised by custom
        ("jak získat občanství v Česku", False),
        ("Česká pošta ztratila balík", False),  # an opening capital
        ("balík mi ztratila Česká pošta", True),  # the post office is named
        ("volby do Poslanecké sněmovny České republiky", True),  # the chamber is named
        ("občan Ceske republiky v Kadani", True),
    ],
)
def test_a_question_about_something_named_is_not_about_the_law(query, particular):
    assert names_something(query) is particular


@pytest.mark.parametrize(
    "question",
    [
        "Soused mi ukradl kolo",  # a theft
        "Uz jednou jsem dostal pokutu za urazku souseda a za par mesicu se to stalo znovu.",  # an offence
        "Pujcil jsem sousedovi zadarmo sekacku a on ji pujcil dal svemu kamaradovi. Smi to?",  # a loan
    ],
)
def test_a_neighbour_in_the_question_is_no_neighbour_rights_question(question):
    assert "domain:sousedska-prava" not in {a.area for a in governing_acts(question)}


@pytest.mark.parametrize(
    "question, citation",
    [
        ("exekutor mi obstavil účet", "120/2001 Sb."),
        ("jak se odvolat proti pokutě", "250/2016 Sb."),
        ("policie mi dala pokutu, muzu se odvolat?", "250/2016 Sb."),
    ],
)
def test_a_lay_phrase_of_the_area_is_enough_to_say_its_act_is_missing(question, citation):
    act = governing_acts(question)[0]
    assert act.citation == citation and act.sure_enough_to_say_missing


@pytest.mark.parametrize(
    "question, citation, area",
    [
        # a benefit's short name is the area's own
        ("jak dlouho je mateřská", "187/2006 Sb.", "domain:nemocenske-pojisteni"),
        ("kolik je rodičovská", "117/1995 Sb.", "domain:statni-socialni-podpora"),
        ("mateřská dovolená kolik týdnů", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("jak si vzít hypotéku", "257/2016 Sb.", "domain:spotrebitelsky-uver"),
        ("stížnost na lékaře kam", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("kdo zaplatí úraz v práci", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("invalidita třetího stupně", "155/1995 Sb.", "domain:duchodove-pojisteni"),
        ("správní žaloba", "150/2002 Sb.", "domain:spravni-soudnictvi"),
        ("finanční arbitr spor s bankou", "229/2002 Sb.", "domain:financni-arbitr"),
        ("notářský zápis", "358/1992 Sb.", "domain:notarstvi"),
        ("telemarketing nevyžádané hovory", "127/2005 Sb.", "domain:elektronicke-komunikace"),
        # the codes the collection holds, routed to their part
        ("podmíněné propuštění", "40/2009 Sb.", "domain:podminene-propusteni"),
        ("nutná obrana", "40/2009 Sb.", "domain:nutna-obrana"),  # "nutná" folds like "nutné", a question word
        ("stalking pronásledování", "40/2009 Sb.", "domain:nebezpecne-pronasledovani"),
        ("vydržení pozemku", "89/2012 Sb.", "domain:vydrzeni"),
        ("SVJ poplatky do fondu oprav", "89/2012 Sb.", "domain:bytove-spoluvlastnictvi"),
        ("předkupní právo spoluvlastníka", "89/2012 Sb.", "domain:spoluvlastnictvi"),
        ("ručitel za úvěr", "89/2012 Sb.", "domain:ruceni"),
        ("zákaz styku s dítětem", "89/2012 Sb.", "domain:styk-s-ditetem"),
        ("dluhy po zemřelém", "89/2012 Sb.", "domain:dedicke-pravo"),
        # "plat" (salary) stems as "platí" (applies), a question word; the noun's own forms keep it
        ("jaký je minimální plat", "262/2006 Sb.", "domain:odmenovani"),
        ("kolik je minimalni plat", "262/2006 Sb.", "domain:odmenovani"),
        ("pes pokousal dítě kdo zaplatí", "89/2012 Sb.", "domain:skoda-zviretem"),
        ("kdo platí opravu výtahu v domě", "89/2012 Sb.", "domain:bytove-spoluvlastnictvi"),
        ("kdy platí zákaz předjíždění", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("odmítnutí dechové zkoušky", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("adopce dítěte", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("nevrátili mi zálohu na dovolenou", "89/2012 Sb.", "domain:zajezd"),  # a holiday trip, not leave
        ("kolik dní dovolené mám", "262/2006 Sb.", "domain:dovolena"),
        ("křivé obvinění", "40/2009 Sb.", "domain:krive-obvineni"),  # the offence, not the procedure's "obvinění"
        ("šikana v práci", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("pes bez vodítka pokuta", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("darovací daň mezi sourozenci", "586/1992 Sb.", "domain:dane-z-prijmu"),  # gifts are income since 2014
        ("kontrola z finančáku", "280/2009 Sb.", "domain:danove-pravo"),
        ("hluk z hospody v noci", "251/2016 Sb.", "domain:verejny-poradek"),
        ("prodej alkoholu po desáté večer", "65/2017 Sb.", "domain:navykove-latky"),  # not a sale's contract
        ("kolik platí důchodce za léky", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        # a yearly decree on travel allowances governs them, not labour law: a wage's compensation is the code's
        ("náhrada mzdy při nemoci první tři dny", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("cestovní náhrady při služební cestě", "573/2025 Sb.", "domain:cestovni-nahrady"),
        ("bezplatná právní pomoc", "85/1996 Sb.", "domain:advokacie"),
        ("občanství pro dítě narozené v cizině", "186/2013 Sb.", "domain:statni-obcanstvi"),
        ("nález peněženky na ulici co dělat", "89/2012 Sb.", "domain:nalez"),
        ("můžu jezdit na koloběžce po chodníku", "361/2000 Sb.", "domain:silnicni-provoz"),  # not the roads act
        ("šikana ve škole", "561/2004 Sb.", "domain:skolstvi"),
        ("zkušební doba u podmíněného trestu", "40/2009 Sb.", "domain:podminene-odsouzeni"),
        ("dostal jsem podmínku co když znovu něco provedu", "40/2009 Sb.", "domain:podminene-odsouzeni"),
        ("může mě zaměstnavatel propustit ve zkušební době", "262/2006 Sb.", "domain:zkusebni-doba"),
        ("kousnul mě pes", "89/2012 Sb.", "domain:skoda-zviretem"),
        ("nefunguje výtah v paneláku", "89/2012 Sb.", "domain:bytove-spoluvlastnictvi"),
        ("dětská skupina pro dvouleté dítě", "247/2014 Sb.", "domain:detska-skupina"),
        ("kolik platí OSVČ na sociálním pojištění", "589/1992 Sb.", "domain:pojistne-socialni"),
        ("kolik platí OSVČ na zdravotním pojištění", "592/1992 Sb.", "domain:pojistne-zdravotni"),
        ("daň z nabytí nemovitosti", "340/2013 Sb.", "domain:dan-z-nabyti-nemovitych-veci"),  # abolished in 2020
        ("půjčil jsem si peníze a úrok je 40 procent měsíčně", "89/2012 Sb.", "domain:lichva"),
        ("může soud vyhostit cizince", "40/2009 Sb.", "domain:trest-vyhosteni"),
        ("platba za popelnice", "565/1990 Sb.", "domain:mistni-poplatky"),
        ("potřebuji povolení na pergolu", "283/2021 Sb.", "domain:stavebni-rizeni"),
        ("zaměstnavatel mi nechce dát zápočtový list", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("našel jsem psa co s ním", "89/2012 Sb.", "domain:nalez"),
        ("rodiče se rozvádějí kdo dostane dítě", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("jak získat parkovací kartu pro invalidy", "329/2011 Sb.", "domain:davky-ozp"),  # not the pensions act
        ("dluh na zdravotním pojištění co hrozí", "592/1992 Sb.", "domain:pojistne-zdravotni"),
        ("na koho se obrátit když mi úřad neodpovídá", "500/2004 Sb.", "domain:spravni-rizeni"),  # it named VAT
        ("kolik je životní minimum", "110/2006 Sb.", "domain:zivotni-minimum"),  # not the material-need act
        ("jak založit spolek", "89/2012 Sb.", "domain:spolky"),  # not the business corporations act
        ("zveřejnění fotky dítěte bez souhlasu", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("jak se vzdát rodičovských práv", "89/2012 Sb.", "domain:rodinne-pravo"),  # not the parental allowance
        ("daň z DPP", "586/1992 Sb.", "domain:dane-z-prijmu"),  # not the labour code's agreements
        ("pracovní posudek", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("služby spojené s užíváním bytu vyúčtování", "67/2013 Sb.", "domain:sluzby-bytu"),  # not the civil code
        ("realitní kancelář provize vrácení", "89/2012 Sb.", "domain:realitni-zprostredkovani"),  # brokerage
        ("převod auta na jiného majitele", "56/2001 Sb.", "domain:registrace-vozidel"),
        ("insolvence zaměstnavatele nevyplacená mzda", "118/2000 Sb.", "domain:mzda-pri-insolvenci-zamestnavatele"),
        ("úrazové pojištění pojišťovna nechce plnit", "89/2012 Sb.", "domain:pojisteni"),  # not public health
        ("daň z darování bytu od rodičů", "586/1992 Sb.", "domain:dane-z-prijmu"),  # not the gift contract
        ("kolik stojí svoz odpadu", "565/1990 Sb.", "domain:mistni-poplatky"),  # the fee, not the waste act
        ("kolik platím za psa", "565/1990 Sb.", "domain:mistni-poplatky"),
        (
            "řízení pod vlivem alkoholu trestný čin",
            "40/2009 Sb.",
            "domain:ohrozeni-pod-vlivem",
        ),  # not "řízení" (proceedings)
        ("alkohol za volantem pokuta", "361/2000 Sb.", "domain:silnicni-provoz"),  # the offence, not the crime
        ("sprejer trest", "40/2009 Sb.", "domain:poskozeni-cizi-veci"),
        ("kamera na domě natáčí souseda", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("úrok z prodlení výše", "89/2012 Sb.", "domain:prodleni"),  # a debtor's, not the tax administrator's
        ("úrok z prodlení u daně", "280/2009 Sb.", "domain:danove-pravo"),
        ("nehoda bez zranění policie", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("daň z výhry v loterii", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("Co můžu chtít po obchodě, když koupená věc má vadu?", "89/2012 Sb.", "domain:kupni-smlouva"),  # not theft
        (
            "Na muj pozemek se neda dostat jinak nez pres sousedovu louku. Muzu po nem chtit, aby me tam nechal jezdit?",
            "89/2012 Sb.",
            "domain:nezbytna-cesta",
        ),
        ("zneužití platební karty kdo platí", "370/2017 Sb.", "domain:platebni-styk"),
        ("bankovní poplatek za vedení účtu", "370/2017 Sb.", "domain:platebni-styk"),
        ("vrácení dotace", "218/2000 Sb.", "domain:dotace-ze-statniho-rozpoctu"),
        ("jak dlouho musí viset na úřední desce", "500/2004 Sb.", "domain:uredni-deska"),
        ("obec prodej pozemku zveřejnění záměru", "128/2000 Sb.", "domain:obecni-samosprava"),  # not the civil code
        ("místní referendum", "22/2004 Sb.", "domain:mistni-referendum"),  # not the Constitution
        ("dluhy po zesnulém rodiči", "89/2012 Sb.", "domain:dedicke-pravo"),  # not the burials act
        ("odvolání proti nepřijetí na školu", "561/2004 Sb.", "domain:skolstvi"),
        ("vyhrožování zabitím", "40/2009 Sb.", "domain:nebezpecne-vyhrozovani"),
        ("stížnost na úředníka", "500/2004 Sb.", "domain:spravni-rizeni"),
        ("pokuta za psa bez vodítka", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("sjezd na pozemek povolení", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("odpisy majetku", "586/1992 Sb.", "domain:dane-z-prijmu"),  # the tax's; "účetní odpisy" stay accounting
        (
            "cestování vlakem zpoždění náhrada",
            "nařízení (EU) 2021/782",
            "domain:prava-cestujicich-v-zeleznicni-doprave",
        ),
        ("věk souhlasu se sexem", "40/2009 Sb.", "domain:pohlavni-zneuziti"),
        ("vyvlastnění pozemku pro dálnici", "89/2012 Sb.", "domain:vyvlastneni"),
        ("odpuštění dluhu ústně", "89/2012 Sb.", "domain:prominuti-dluhu"),  # not the tax debts' amnesty
        ("odpuštění daňových dluhů", "182/2023 Sb.", "domain:odpusteni-danovych-dluhu"),
        ("kolik muze stat sluzby k najmu", "67/2013 Sb.", "domain:sluzby-bytu"),  # "služby": not military service
        ("vypoved po nemocenske", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),  # not the sickness insurance
        ("zakaz konkurence po skonceni prace", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("diskriminace v praci kvuli veku", "198/2009 Sb.", "domain:diskriminace"),  # not the Charter alone
        ("opatrovnictvi seniora", "89/2012 Sb.", "domain:svepravnost-a-opatrovnictvi"),
        ("soused parkuje pred mym vjezdem", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("zatopil jsem sousedy kdo plati", "89/2012 Sb.", "domain:nahrada-skody"),
        ("oprava domu v pamatkove zone povoleni", "20/1987 Sb.", "domain:pamatkova-pece"),
        ("lekar odmita vydat kopii karty", "372/2011 Sb.", "domain:zdravotni-sluzby"),  # not the medicines act
        ("hacknuty ucet co delat", "40/2009 Sb.", "domain:neopravneny-pristup-k-pocitaci"),
        ("dph u pronajmu bytu", "235/2004 Sb.", "domain:dph"),  # the tax, not the lease
        ("zvire zemrelo kam s nim", "166/1999 Sb.", "domain:veterinarni-pece"),
        ("prodej elektriny do site", "458/2000 Sb.", "domain:energetika"),
        ("kontrola e-mailů zaměstnance", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("prijimaci pohovor otazky na tehotenstvi", "198/2009 Sb.", "domain:diskriminace"),  # not the schools act
        ("prace na cerno pokuta", "435/2004 Sb.", "domain:zamestnanost"),  # not the railways' "černý pasažér"
        ("socialni pohreb obec", "256/2001 Sb.", "domain:pohrebnictvi"),  # not housing support for its "obec"
        ("docasna ochrana ukrajina", "65/2022 Sb.", "domain:docasna-ochrana"),
        ("deportace cizince", "326/1999 Sb.", "domain:pobyt-cizincu"),
        ("vyhodili me bez vypovedi", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),
        ("mzda v hotovosti", "262/2006 Sb.", "domain:odmenovani"),
        ("jak funguje pojisteni vkladu", "21/1992 Sb.", "domain:pojisteni-vkladu"),  # not the central bank's act
        ("podilove fondy dan", "586/1992 Sb.", "domain:dane-z-prijmu"),  # not the tax procedure code
        ("podnikání s kamarádem bez firmy vklady", "89/2012 Sb.", "domain:spolecnost-oz"),  # not a bank's deposits
        ("můžu odmítnout dechovou zkoušku", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("od kolika let muze dite jezdit samo na kole po silnici", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("hlasitá hudba po 22 hodině", "251/2016 Sb.", "domain:verejny-poradek"),
        ("opuštěný vrak auta na ulici", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("ucitel zabavil mobil", "561/2004 Sb.", "domain:skolstvi"),  # not the civil procedure's seizure
        ("uznani zahranicniho diplomu nostrifikace", "111/1998 Sb.", "domain:vysoke-skoly"),
        ("obcanstvi pro manzela cizince", "186/2013 Sb.", "domain:statni-obcanstvi"),
        ("domaci zvire v najmu", "89/2012 Sb.", "domain:najem"),  # not the veterinary act
        ("ubytovaci poplatek obec", "565/1990 Sb.", "domain:mistni-poplatky"),  # not the municipalities act
        ("kominik revize komina", "133/1985 Sb.", "domain:spalinove-cesty"),  # not the railways' ticket checks
        ("kontejner na ulici povoleni zabor", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("hudba v restauraci OSA poplatky", "121/2000 Sb.", "domain:autorske-pravo"),
        ("kamera v restauraci zakaznici", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("nahravani telefonatu bez souhlasu", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("vydirani intimnimi fotkami", "40/2009 Sb.", "domain:vydirani"),  # a crime, not only a privacy matter
        ("autoservis poskodil auto", "89/2012 Sb.", "domain:skoda-na-prevzate-veci"),
        ("lekarska chyba odskodneni", "89/2012 Sb.", "domain:ujma-na-zdravi"),
        ("predplatne zrusit automaticke prodlouzeni", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("vstupenka zruseny koncert vraceni penez", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("ubytovani na hotelu nebylo jak v nabidce", "89/2012 Sb.", "domain:ubytovani"),  # not public procurement
        ("stani v zakazu zastaveni", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("dan z motorovych vozidel", "16/1993 Sb.", "domain:dan-silnicni"),  # not the tax procedure code
        ("penale za pozdni platbu faktury", "89/2012 Sb.", "domain:prodleni"),  # not VAT for its "faktura"
        ("smluvni pokuta vyse primerena", "89/2012 Sb.", "domain:smluvni-pokuta"),
        ("nadacni fond zalozeni", "89/2012 Sb.", "domain:nadace"),  # not the public registers act
        ("zivotni pojisteni odpocet od dane", "586/1992 Sb.", "domain:dane-z-prijmu"),  # not VAT's "odpočet"
        ("licence na taxi", "111/1994 Sb.", "domain:taxisluzba"),
        ("domov duchodcu platba", "108/2006 Sb.", "domain:socialni-sluzby"),  # not the pensions act
        ("jmeno ditete neobvykle", "301/2000 Sb.", "domain:matriky-jmeno"),
        ("dluznik chce potvrzeni o zaplaceni", "89/2012 Sb.", "domain:kvitance"),
        ("kamarad chysta prepadeni banky musim to nahlasit", "40/2009 Sb.", "domain:neprekazeni-neoznameni"),
        ("muj syn spi se 14letou", "40/2009 Sb.", "domain:pohlavni-zneuziti"),  # not the police act
        ("koupil jsem kradeny telefon na bazaru", "40/2009 Sb.", "domain:podilnictvi"),
        ("pred exekuci prepsal dum na manzelku", "40/2009 Sb.", "domain:poskozeni-veritele"),  # not the executions
        ("zabil cloveka autem kolik let", "40/2009 Sb.", "domain:vrazda"),
        ("nabidl jsem uplatek policistovi", "40/2009 Sb.", "domain:uplatkarstvi"),
        ("pujcil jsem sousedovi zadarmo vrtacku a rozbil ji", "89/2012 Sb.", "domain:vypujcka"),
        ("dal jsem zavdavek a prodavajici si to rozmyslel", "89/2012 Sb.", "domain:zavdavek"),
        ("obchodni zastupce provize po skonceni smlouvy", "89/2012 Sb.", "domain:obchodni-zastoupeni"),
        ("babicka chce doziti v dome ktery prepise na vnuka", "89/2012 Sb.", "domain:sluzebnosti"),
        ("noční směna příplatek", "262/2006 Sb.", "domain:pracovni-doba"),  # a shift, not an exchange of things
        ("dal jsem auto do zastavy za pujcku muze ho prodat", "89/2012 Sb.", "domain:zastavni-pravo"),
        ("Pujcil jsem kamaradovi padesat tisic. Muzu po nem chtit i uroky?", "89/2012 Sb.", "domain:zapujcka"),
        ("podvedl me na bazosu co ted", "40/2009 Sb.", "domain:podvod"),  # what people write: the verb
        ("zbil me soused", "40/2009 Sb.", "domain:ublizeni-na-zdravi"),
        ("okradl me kamarad", "40/2009 Sb.", "domain:kradez"),
        ("rozbil mi okno mickem", "89/2012 Sb.", "domain:povinnost-nahradit-skodu"),
        ("urazil me na facebooku", "251/2016 Sb.", "domain:verejny-poradek"),
        ("zamestnanec ukradl zbozi srazka ze mzdy", "262/2006 Sb.", "domain:odpovednost-zamestnance"),  # not OSŘ
        ("odbory v firme prava", "262/2006 Sb.", "domain:odbory"),
        ("vysilani do zahranici diety", "262/2006 Sb.", "domain:cestovni-nahrady"),
        ("soused ma psa ktery porad steka", "89/2012 Sb.", "domain:sousedska-prava"),
        ("kocky souseda mi chodi na zahradu", "89/2012 Sb.", "domain:sousedska-prava"),  # not the veterinary act
        ("kourení na balkone soused", "89/2012 Sb.", "domain:sousedska-prava"),  # not the smoking act
        ("koupil jsem byt a je tam nahlaseny cizi clovek", "133/2000 Sb.", "domain:evidence-obyvatel"),
        ("podnajemnik odmita odejit", "89/2012 Sb.", "domain:podnajem"),
        ("soused podpalil stodolu", "40/2009 Sb.", "domain:obecne-ohrozeni"),
        ("doma ma nelegalni zbran", "40/2009 Sb.", "domain:nedovolene-ozbrojovani"),
        ("poslal nahe fotky nezletile", "40/2009 Sb.", "domain:pornografie"),
        ("karuselovy podvod DPH", "40/2009 Sb.", "domain:zkraceni-dane"),  # the crime, not the VAT act
        ("Platí starý zbrojní průkaz skupiny A i po novém zákoně o zbraních?", "90/2024 Sb.", "domain:zbrane"),
        ("remeslnik spatne polozil dlazbu vady dila", "89/2012 Sb.", "domain:vady-dila"),
        ("muzu podepsat za syna vzdani se dedictvi", "89/2012 Sb.", "domain:zastoupeni-ditete"),
        ("Může si dítě samo koupit telefon bez souhlasu rodičů?", "89/2012 Sb.", "domain:svepravnost-nezletilych"),
        ("kamarad zpronevěřil peníze spolku", "40/2009 Sb.", "domain:zpronevera"),
        ("vytrhl mi kabelku na ulici", "40/2009 Sb.", "domain:loupez"),
        ("pestovani marihuany doma trest", "40/2009 Sb.", "domain:drogy"),
        ("ridil jsem pres zakaz rizeni co mi hrozi", "40/2009 Sb.", "domain:mareni-rozhodnuti"),  # not road traffic
        ("ujel z mista nehody a nepomohl zranenemu", "40/2009 Sb.", "domain:neposkytnuti-pomoci"),
        ("omylem mi poslal penize na ucet musim je vratit", "89/2012 Sb.", "domain:bezduvodne-obohaceni"),
        ("ztratili mi kabat v satne", "89/2012 Sb.", "domain:uschova"),
        ("kuryr ztratil balik kdo zaplati", "89/2012 Sb.", "domain:preprava"),
        ("dluh ze sazky vymahat", "89/2012 Sb.", "domain:sazka-hra"),  # a private bet, not the gambling act
        ("pronajímatel mi vlezl do bytu bez dovolení", "40/2009 Sb.", "domain:domovni-svoboda"),
        ("Je trestné vzít si bez dovolení cizí auto na projížďku?", "40/2009 Sb.", "domain:neopravnene-uzivani"),
        ("nafingovaná nehoda pojišťovna", "40/2009 Sb.", "domain:pojistny-podvod"),
        ("chytal ryby bez povolenky", "40/2009 Sb.", "domain:pytlactvi"),
        ("nahlásil bombu ve škole jako vtip", "40/2009 Sb.", "domain:poplasna-zprava"),
        # the parts of the inheritance law a lay question lands on, not the whole of it
        ("muze me otec vydedit", "89/2012 Sb.", "domain:povinny-dil"),
        ("Kolik musí dostat dítě, když ho rodič v závěti vynechá?", "89/2012 Sb.", "domain:povinny-dil"),
        ("jak odmitnout dedictvi po otci", "89/2012 Sb.", "domain:odmitnuti-dedictvi"),
        ("babicka mi odkazala auto kdy ho dostanu", "89/2012 Sb.", "domain:odkaz"),
        ("test otcovstvi popreni", "89/2012 Sb.", "domain:urceni-rodicovstvi"),
        ("plna moc na urad", "89/2012 Sb.", "domain:plna-moc"),
        ("pronajem pole zemedelci pachtovne", "89/2012 Sb.", "domain:pacht"),
        # an EU regulation governs it: named as the collection would cite it
        (
            "zrušili mi let, mám nárok na odškodnění",
            "nařízení (ES) č. 261/2004",
            "domain:prava-cestujicich-v-letecke-doprave",
        ),
        ("zpozdeny let kompenzace", "nařízení (ES) č. 261/2004", "domain:prava-cestujicich-v-letecke-doprave"),
        # a part of family law, not the whole; a tax a guest pays is the town's fee, not the hotel's contract
        ("osvojení dítěte manželky", "89/2012 Sb.", "domain:osvojeni"),
        ("hotel daň z ubytování", "565/1990 Sb.", "domain:mistni-poplatky"),
        # parts of the civil code a story names in its own words
        ("brácha má na starost majetek po dědovi za nás sourozence", "89/2012 Sb.", "domain:sprava-ciziho-majetku"),
        ("jsme zavázáni společně a nerozdílně, musím zaplatit celý dluh?", "89/2012 Sb.", "domain:spolecne-dluhy"),
        ("poslední den lhůty připadne na sobotu", "89/2012 Sb.", "domain:pocitani-casu"),
        ("prodal jsem motorku a kamarád mi ji zase prodá zpátky", "89/2012 Sb.", "domain:zpetna-koupe"),
        ("stůl z cizích prken komu patří", "89/2012 Sb.", "domain:zpracovani-veci"),
        ("mám garáž na pozemku obce, obec ho prodává", "89/2012 Sb.", "domain:stavba-na-cizim-pozemku"),
        ("soused o mně lže na facebooku, může to smazat?", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("dcera dostala dárek od babičky, můžu ho vzít zpět", "89/2012 Sb.", "domain:darovani"),
        ("šéf mě nutí pracovat o víkendu", "262/2006 Sb.", "domain:pracovni-doba"),
        ("kdo platí opravu společné zdi mezi domy", "89/2012 Sb.", "domain:sousedska-prava"),
        ("podepsal jsem smlouvu pod nátlakem", "89/2012 Sb.", "domain:neplatnost-jednani"),
        ("kolik dní dovolené mi náleží", "262/2006 Sb.", "domain:dovolena"),  # "náleží" is no find ("nález")
        ("někdo mi vykradl auto", "40/2009 Sb.", "domain:kradez"),
        ("kamarád mi dal ukradený telefon", "40/2009 Sb.", "domain:podilnictvi"),
        ("manžel mě bije", "40/2009 Sb.", "domain:domaci-nasili"),
        ("otec dítěte nechce uznat otcovství", "89/2012 Sb.", "domain:urceni-rodicovstvi"),
        ("dostal jsem výpověď v těhotenství", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),
        ("syn kouří trávu, co mu hrozí", "40/2009 Sb.", "domain:drogy"),
        ("šéf nutí k sexu výhrůžka výpovědí", "40/2009 Sb.", "domain:znasilneni"),  # coercion, TZ § 186
        ("urna po tatovi komu patri", "89/2012 Sb.", "domain:lidske-pozustatky"),  # whose the urn is: OZ § 92
        ("kde si vyzvednout urnu z krematoria", "256/2001 Sb.", "domain:pohrebnictvi"),  # ... a crematorium's rules
        ("banka mi zvýšila úrok u hypotéky", "257/2016 Sb.", "domain:spotrebitelsky-uver"),  # not the income tax's
        ("ručil jsem za úvěr kamarádovi a on neplatí", "89/2012 Sb.", "domain:ruceni"),
        ("potřebuji povolení na plot", "283/2021 Sb.", "domain:stavebni-rizeni"),
        ("soused má slepice a kohout kokrhá", "89/2012 Sb.", "domain:sousedska-prava"),
        ("dostal jsem body za přestupek", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("sourozenec nechce prodat zděděný dům", "89/2012 Sb.", "domain:spoluvlastnictvi"),
        ("pojišťovna mi nechce zaplatit škodu na autě", "89/2012 Sb.", "domain:pojisteni"),
        (
            "dostal jsem výpověď z nájmu bez důvodu",
            "89/2012 Sb.",
            "domain:skonceni-najmu",
        ),  # a lease's notice, not a job's
        ("někdo mi poškrábal auto klíčem", "40/2009 Sb.", "domain:poskozeni-cizi-veci"),
        ("dcera kradla v obchodě, je jí 14", "40/2009 Sb.", "domain:kradez"),
        ("natočil mě bez souhlasu a dal to na internet", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("chci nahlédnout do spisu na úřadě", "500/2004 Sb.", "domain:spravni-rizeni"),
        ("jak se odvolat proti rozsudku", "99/1963 Sb.", "domain:civilni-proces"),
        ("soused mi teče do bytu", "89/2012 Sb.", "domain:nahrada-skody"),
        ("koupil jsem štěně a je nemocné", "89/2012 Sb.", "domain:kupni-smlouva"),  # was the health services act
        ("na dovolené byl hotel špinavý", "89/2012 Sb.", "domain:zajezd"),  # a holiday trip, not a worker's leave
        ("hluk z hospody pod oknem", "251/2016 Sb.", "domain:verejny-poradek"),
        ("můžu grilovat na balkoně", "89/2012 Sb.", "domain:sousedska-prava"),
        ("kolik psů můžu mít v bytě", "89/2012 Sb.", "domain:najem"),
        ("šéf mi zakázal jít k lékaři", "262/2006 Sb.", "domain:pracovni-pravo"),  # was the medicines act
        ("zaměstnavatel čte moje emaily", "262/2006 Sb.", "domain:pracovni-pravo"),  # was hacking (TZ)
        ("jak dlouho je výpovědní lhůta", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("jak dlouho je výpovědní lhůta z nájmu", "89/2012 Sb.", "domain:skonceni-najmu"),
        ("zaměstnavatel mi nedal výplatní pásku", "262/2006 Sb.", "domain:odmenovani"),
        ("otec nepřevzal dítě ve stanovený čas", "89/2012 Sb.", "domain:styk-s-ditetem"),
        ("jak se rozvést rychle", "89/2012 Sb.", "domain:manzelstvi"),  # not the road traffic act's speed
        ("máma mi darovala byt a teď ho chce zpátky", "89/2012 Sb.", "domain:darovani"),
        ("vyfotili mě na ulici a dali fotku na internet", "89/2012 Sb.", "domain:ochrana-osobnosti"),  # not copyright
        ("koupil jsem přes internet boty a chci je vrátit", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("zedník odvedl špatnou práci na střeše", "89/2012 Sb.", "domain:vady-dila"),  # was the labour code's "práce"
        ("dítě nechce chodit k otci na víkendy", "89/2012 Sb.", "domain:styk-s-ditetem"),  # was working hours
        ("vjel jsem do auta na parkovišti a odjel", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("úřad mi neodpověděl na žádost", "500/2004 Sb.", "domain:spravni-rizeni"),
        ("škola vyloučila mého syna", "561/2004 Sb.", "domain:skolstvi"),
        ("chytili mě s trávou", "40/2009 Sb.", "domain:drogy"),
        ("chci přistavět garáž", "283/2021 Sb.", "domain:stavebni-rizeni"),
        ("pracuju načerno co mi hrozí", "435/2004 Sb.", "domain:zamestnanost"),
        ("šéf mi nedal přestávku na oběd", "262/2006 Sb.", "domain:pracovni-doba"),
        ("jak reklamovat neoprávněnou platbu kartou", "370/2017 Sb.", "domain:platebni-styk"),  # was a sale's claim
        ("někdo mi vybral peníze z karty", "370/2017 Sb.", "domain:platebni-styk"),
        ("můžu kandidovat do zastupitelstva obce", "88/2024 Sb.", "domain:volby"),  # was the municipalities act
        ("jak se počítá průměrný výdělek", "262/2006 Sb.", "domain:prumerny-vydelek"),
        ("přítel mi sebral klíče a nechtěl mě pustit ven", "40/2009 Sb.", "domain:osobni-svoboda"),  # was the police
        (
            "opilý řval v čekárně u doktora, dostane pokutu?",
            "251/2016 Sb.",
            "domain:verejny-poradek",
        ),  # not health care
        (
            "pojišťovna vyplatila míň, dům byl pojištěný na málo",
            "89/2012 Sb.",
            "domain:pojisteni",
        ),  # not health insurance
        ("kolik vyplatí pojišťovna za vytopený byt", "89/2012 Sb.", "domain:pojisteni"),  # was wages ("vyplatí")
        ("nahlásil jsem pojišťovně větší škodu, než byla", "40/2009 Sb.", "domain:pojistny-podvod"),
        ("kdyz se rozvedeme kdo bude splacet hypoteku", "89/2012 Sb.", "domain:manzelstvi"),  # was consumer credit
        ("mama ma demenci kdo za ni bude rozhodovat", "89/2012 Sb.", "domain:svepravnost-a-opatrovnictvi"),
        ("otec prepsal dum na milenku", "89/2012 Sb.", "domain:darovani"),
        ("prodala jsem kolo pres bazos a kupec nezaplatil", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("objednal jsem kuchyn a firma neprisla", "89/2012 Sb.", "domain:dilo"),
        ("majitel prodava byt kde bydlim v najmu", "89/2012 Sb.", "domain:najem"),
        ("pes stekal celou noc", "89/2012 Sb.", "domain:sousedska-prava"),
        ("soused mi hazi odpadky na zahradu", "89/2012 Sb.", "domain:sousedska-prava"),  # was the waste act
        ("ochranka me drzela v kancelari", "40/2009 Sb.", "domain:osobni-svoboda"),
        ("prohral jsem soud musim platit naklady", "99/1963 Sb.", "domain:civilni-proces"),
        ("obec mi neposkytla informace", "106/1999 Sb.", "domain:pristup-k-informacim"),
        ("parkovací karta pro rezidenty", "13/1997 Sb.", "domain:dalnicni-poplatek"),  # was the disabled's benefits
        ("parkovací karta pro invalidy", "329/2011 Sb.", "domain:davky-ozp"),
        ("daň z psa", "565/1990 Sb.", "domain:mistni-poplatky"),  # a local fee, whatever people call it
        ("odpojili mi elektřinu za nezaplacení", "458/2000 Sb.", "domain:energetika"),
        ("kolega mě sexuálně obtěžuje", "198/2009 Sb.", "domain:diskriminace"),  # was stalking
        ("v práci jsem se zranil", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("chci dát výpověď dohodou", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),
        ("exekutor přišel do bytu", "120/2001 Sb.", "domain:exekuce"),
        ("kdy musím s autem na STK", "56/2001 Sb.", "domain:registrace-vozidel"),
        ("je povinná školka poslední rok před školou", "561/2004 Sb.", "domain:skolstvi"),
        ("prodejce auta stočil tachometr", "56/2001 Sb.", "domain:registrace-vozidel"),
        ("kamarád mi dal facku", "251/2016 Sb.", "domain:verejny-poradek"),
        ("mám právo se bránit když mě napadnou", "40/2009 Sb.", "domain:nutna-obrana"),
        ("střelil jsem po zloději", "40/2009 Sb.", "domain:nutna-obrana"),  # was theft
        ("našel jsem na účtu cizí peníze", "89/2012 Sb.", "domain:bezduvodne-obohaceni"),  # was a find
        ("bratr mi nevrací auto které jsem mu půjčil", "89/2012 Sb.", "domain:vypujcka"),  # was a forgiven debt
        ("našel jsem v lese zbraň", "90/2024 Sb.", "domain:zbrane"),  # was the forests act
        ("musím chodit do práce když mám horečku", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("kolik dní můžu být doma s nemocným dítětem", "187/2006 Sb.", "domain:nemocenske-pojisteni"),
        ("invalidní vozík kdo platí", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("chci si otevřít kavárnu jaká povolení", "455/1991 Sb.", "domain:zivnostenske-podnikani"),
        ("chci zaměstnat prvního zaměstnance", "262/2006 Sb.", "domain:pracovni-pravo"),
        (
            "rozvedená matka stěhování s dítětem do jiného města",
            "89/2012 Sb.",
            "domain:vykon-rodicovske-odpovednosti",
        ),  # not the town
        ("chci vidět vnoučata soud", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("syn má 18 a nechce pracovat musím ho živit", "89/2012 Sb.", "domain:vyzivne"),
        ("prodej podílu na domě sourozenci", "89/2012 Sb.", "domain:spoluvlastnictvi"),  # was income tax
        ("firma mi volá s nabídkami a nechci to", "127/2005 Sb.", "domain:elektronicke-komunikace"),  # not tenders
        ("e-shop prodal moje údaje", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("balík nedorazil a prodejce tvrdí že ho poslal", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("hotel mi nevrátil zálohu", "89/2012 Sb.", "domain:ubytovani"),  # accommodation, OZ §§ 2326-2331
        ("sociálka mi chce vzít dítě", "359/1999 Sb.", "domain:socialne-pravni-ochrana-deti"),  # not the premiums
        ("kolik platím sociálku jako OSVČ", "589/1992 Sb.", "domain:pojistne-socialni"),  # was income tax
        ("babička chce odkázat byt vnukovi", "89/2012 Sb.", "domain:odkaz"),
        ("půjčil jsem kamarádovi auto a on ho nabořil", "89/2012 Sb.", "domain:vypujcka"),  # was a money loan
        ("půjčil jsem kamarádovi peníze a nevrací je", "89/2012 Sb.", "domain:zapujcka"),
        ("otec dítěte nechodí na domluvené návštěvy", "89/2012 Sb.", "domain:styk-s-ditetem"),
        ("soused mi nadává přes plot je to přestupek", "251/2016 Sb.", "domain:verejny-poradek"),  # not the fence
        ("opilý muž močil na náměstí co mu hrozí", "251/2016 Sb.", "domain:verejny-poradek"),
        ("někdo mi na facebooku napsal že jsem zloděj", "40/2009 Sb.", "domain:pomluva"),  # was theft
        ("manžel mě ponižuje a křičí na mě před dětmi", "40/2009 Sb.", "domain:domaci-nasili"),
        ("můžu podnikat při zaměstnání", "455/1991 Sb.", "domain:zivnostenske-podnikani"),  # was consumer contracts
        ("zdědil jsem po dědovi pušku co s ní", "90/2024 Sb.", "domain:zbrane"),
        ("můžu volit když jsem v nemocnici", "88/2024 Sb.", "domain:volby"),  # was health services
        ("koupená hra na počítač nejde spustit a obchod ji nechce vrátit", "89/2012 Sb.", "domain:digitalni-obsah"),
        ("aplikace kterou jsem si koupil nefunguje chci peníze zpět", "89/2012 Sb.", "domain:digitalni-obsah"),
        ("kdo se postara o dite kdyz oba rodice zemrou", "89/2012 Sb.", "domain:porucenstvi"),  # went nowhere
        ("jak adoptovat dítě z dětského domova", "89/2012 Sb.", "domain:osvojeni"),
        ("tatinek je v nemocnici a nemuze podepsat prodej auta", "89/2012 Sb.", "domain:plna-moc"),  # was a sale
        ("firma mi dluzi za fakturu jak to vymahat", "89/2012 Sb.", "domain:prodleni"),  # was VAT
        ("syn prodával trávu spolužákům", "40/2009 Sb.", "domain:drogy"),
        ("zaměstnanec kradl ve skladu", "40/2009 Sb.", "domain:kradez"),  # was the waste act
        ("vloupali se mi do chaty", "40/2009 Sb.", "domain:kradez"),
        ("podvodník mi volal jako banka a vybral mi účet", "40/2009 Sb.", "domain:podvod"),  # was payment services
        ("nabídli mi investici a peníze zmizely", "40/2009 Sb.", "domain:podvod"),  # was banking
        ("banka mi chce vzít dům kvůli hypotéce", "89/2012 Sb.", "domain:zastavni-pravo"),  # was real estate
        ("společník mě chce vyloučit z firmy", "90/2012 Sb.", "domain:obchodni-korporace"),  # not a civil partnership
        ("úřad mi nevyřídil žádost včas", "500/2004 Sb.", "domain:spravni-rizeni"),
        ("zaměstnavatel mě propustil kvůli náboženství", "198/2009 Sb.", "domain:diskriminace"),
        ("skoda z nehody pres limit pojisteni kdo zaplati", "30/2024 Sb.", "domain:povinne-ruceni"),  # was health
        (
            "mam narok na prispevek od zamestnavatele na penzijni sporeni",
            "324/2025 Sb.",
            "domain:povinny-prispevek-na-sporeni",
        ),
        ("musim hlasit prodej zbrane", "90/2024 Sb.", "domain:zbrane"),  # was a sale
        ("může patnáctiletý uzavřít smlouvu na telefon", "89/2012 Sb.", "domain:svepravnost-nezletilych"),
        ("hodinový manžel poškodil kuchyň", "89/2012 Sb.", "domain:dilo"),  # a handyman, not a husband
        ("kamarád mi dluží a umřel kdo zaplatí", "89/2012 Sb.", "domain:dedicke-pravo"),  # the heirs, not the delay
        ("zaměstnavatel mi dal pokutu za pozdní příchod", "262/2006 Sb.", "domain:pracovni-pravo"),  # no fine clause
        ("kůň utekl z pastviny a poničil auto", "89/2012 Sb.", "domain:skoda-zviretem"),
        ("zapomněl jsem zrušit zkušební verzi a strhli mi peníze", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("podomní prodejce mi vnutil smlouvu na energie", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),  # not a sale
        ("energetická firma mi zvedla zálohy", "458/2000 Sb.", "domain:energetika"),
        ("založila jsem nadaci pro dětský domov, který zavřeli, jde změnit její účel", "89/2012 Sb.", "domain:nadace"),
        ("kolik dostanu za kilometr když jezdím vlastním autem služebně", "573/2025 Sb.", "domain:cestovni-nahrady"),
        ("někdo si na mě vzal půjčku s mými ukradenými doklady", "40/2009 Sb.", "domain:podvod"),
        ("jak zjistit kdo vlastní pozemek vedle mě", "256/2013 Sb.", "domain:katastr-nemovitosti"),
        ("nemám peníze na právníka, dostanu ho zdarma", "85/1996 Sb.", "domain:advokacie"),
        ("obchod prodal mému synovi vodku, je mu patnáct", "65/2017 Sb.", "domain:navykove-latky"),
        ("můžu jít k volbám když bydlím v zahraničí", "88/2024 Sb.", "domain:volby"),
        ("kdo opraví rozbitou silnici před domem", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("najel jsem do výmolu na silnici kdo platí", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("kolik smím mít alkoholu v krvi když řídím", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("ukradli mi kolo ze sklepa", "40/2009 Sb.", "domain:kradez"),  # stolen papers' fraud keeps its words
        ("prodejce auta zatajil že bylo bourané", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("konkurence používá moje logo", "441/2003 Sb.", "domain:ochranne-znamky"),
        ("můžu použít písničku z youtube ve svém videu", "121/2000 Sb.", "domain:autorske-pravo"),
        ("chci vidět smlouvy, které obec uzavřela", "340/2015 Sb.", "domain:registr-smluv"),
        ("zastupitel hlasoval o zakázce pro firmu své manželky", "159/2006 Sb.", "domain:stret-zajmu"),
        ("kolik vydělává poslanec", "236/1995 Sb.", "domain:platy-predstavitelu"),
        ("jak odvolat starostu", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("dceři je sedmnáct a chce se odstěhovat k příteli", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("čtrnáctiletý syn si koupil cigarety v trafice", "65/2017 Sb.", "domain:navykove-latky"),
        ("koupil jsem hru a nefunguje", "89/2012 Sb.", "domain:digitalni-obsah"),  # "koupil" is no tobacco's
        ("kamarád mi prodal kradené kolo", "40/2009 Sb.", "domain:podilnictvi"),
        ("nabídl jsem úředníkovi peníze aby to urychlil", "40/2009 Sb.", "domain:uplatkarstvi"),
        ("uhodil jsem útočníka když mě napadl", "40/2009 Sb.", "domain:nutna-obrana"),
        ("zaměstnanec si bral peníze z pokladny", "40/2009 Sb.", "domain:zpronevera"),
        ("zemřel táta, který měl byt v nájmu, můžu tam bydlet dál", "89/2012 Sb.", "domain:prechod-najmu"),
        ("v obchodě mi nechtějí uznat reklamaci bot", "89/2012 Sb.", "domain:prodej-zbozi-v-obchode"),
        ("reklamace telefonu po roce", "89/2012 Sb.", "domain:prodej-zbozi-v-obchode"),
        ("prodloužená záruka na pračku", "89/2012 Sb.", "domain:kupni-smlouva"),  # a guarantee for quality
        ("chci si koupit pistoli na ochranu", "90/2024 Sb.", "domain:zbrane"),
        ("dostal jsem pokutu za parkování na místě pro invalidy", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("potřebuju povolení na pokácení stromu na své zahradě", "114/1992 Sb.", "domain:ochrana-prirody"),
        ("soused mi pokácel strom na mém pozemku", "89/2012 Sb.", "domain:sousedska-prava"),  # no permit asked
        ("banka mi strhla poplatek, který jsem neodsouhlasil", "370/2017 Sb.", "domain:platebni-styk"),
        ("ztratil jsem kartu a někdo z ní platil", "370/2017 Sb.", "domain:platebni-styk"),
        ("kdo může vypnout elektřinu za neplacení", "458/2000 Sb.", "domain:energetika"),
        ("podepsal jsem smlouvu na ulici s prodejcem energií", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("chci udělat ze sklepa byt, potřebuju povolení", "283/2021 Sb.", "domain:stavebni-rizeni"),
        ("schůze vlastníků rozhodla bez nás", "89/2012 Sb.", "domain:bytove-spoluvlastnictvi"),
        ("syn si vzal půjčku a teď chtějí peníze po mně", "89/2012 Sb.", "domain:zapujcka"),  # no fraud
        ("jak dlouho musím užívat cizí pozemek abych ho vydržel", "89/2012 Sb.", "domain:vydrzeni"),
        ("lékař mi neřekl o rizicích operace", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("firma mi poslala zboží, které jsem neobjednal", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("malíř nedodržel termín, můžu odstoupit", "89/2012 Sb.", "domain:dilo"),
        ("můžu zastavit šperky v zastavárně", "89/2012 Sb.", "domain:zastavni-pravo"),
        ("ségra mi dluží prachy a nevrací je", "89/2012 Sb.", "domain:zapujcka"),  # slang: "prachy", "děcka"
        ("bejvalka mi nedovolí vídat děcka", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("kámoš mi naboural káru", "89/2012 Sb.", "domain:skoda-z-provozu-dopravnich-prostredku"),
        ("soused mi ukrad kolo", "40/2009 Sb.", "domain:kradez"),  # a clipped "ukradl", not stolen goods bought
        ("chci se rozvíst co pro to musím udělat", "89/2012 Sb.", "domain:manzelstvi"),
        ("učitel mi fyzicky ublížil", "40/2009 Sb.", "domain:ublizeni-na-zdravi"),
        ("řídil jsem bez papírů", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("kde si stěžovat na policajta", "273/2008 Sb.", "domain:policie"),
        ("vyhodili mě z nájmu během zimy", "89/2012 Sb.", "domain:skonceni-najmu"),
        ("soused chová prasata a smrdí to", "89/2012 Sb.", "domain:sousedska-prava"),
        ("zubař chce peníze za plombu", "48/1997 Sb.", "domain:zdravotni-pojisteni"),  # a filling, not a land mark
        ("syn propadl, může opakovat ročník", "561/2004 Sb.", "domain:skolstvi"),
        ("chci pracovat z domova, může mi to šéf zakázat", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("sanitka přijela pozdě", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("falešně mě obvinili z krádeže", "40/2009 Sb.", "domain:krive-obvineni"),  # accused, not a thief
        ("kamarád mě udal na policii za něco co jsem neudělal", "40/2009 Sb.", "domain:krive-obvineni"),
        ("zaplatil jsem zálohu na byt a majitel zmizel", "40/2009 Sb.", "domain:podvod"),
        ("podepsal jsem něco na ulici a teď mi chodí faktury", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("šéf mi čte e-maily v práci", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("soused mi zaplavil byt", "89/2012 Sb.", "domain:nahrada-skody"),
        ("mohu si nahrát hovor s úřednicí", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("fotka mého dítěte na facebooku školy", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("vymáhá po mně dluh inkasní firma po deseti letech", "89/2012 Sb.", "domain:promlceni"),
        ("kolik zaplatím na sociálním jako živnostník", "589/1992 Sb.", "domain:pojistne-socialni"),
        ("kolik zaplatím na zdravotním jako živnostník", "592/1992 Sb.", "domain:pojistne-zdravotni"),
        ("sousedova stavba mi stíní", "89/2012 Sb.", "domain:sousedska-prava"),
        ("jak získat občanku pro dítě", "269/2021 Sb.", "domain:obcanske-prukazy"),
        ("dítě bez souhlasu otce do zahraničí", "89/2012 Sb.", "domain:vykon-rodicovske-odpovednosti"),
        ("dostal jsem výzvu k podání vysvětlení", "273/2008 Sb.", "domain:policie"),
        ("policie mě zastavila a chtěla test na drogy", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("kamarád mi nevrátil auto", "89/2012 Sb.", "domain:vypujcka"),
        ("vlak nejel a nestihl jsem práci", "nařízení (EU) 2021/782", "domain:prava-cestujicich-v-zeleznicni-doprave"),
        ("hotel neodpovídal popisu", "89/2012 Sb.", "domain:ubytovani"),
        ("práce v noci pro mladistvého", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("exekuce na duchod kolik mi nechaji", "120/2001 Sb.", "domain:exekuce"),
        ("prodej pozemku dan po 5 letech", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("učitel dal dítěti pětku nespravedlivě", "561/2004 Sb.", "domain:skolstvi"),
        ("nesouhlasím se známkou na vysvědčení", "561/2004 Sb.", "domain:skolstvi"),
        ("účet pro dítě kdo s ním disponuje", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("banka nechce vydat peníze z účtu zemřelé matky", "89/2012 Sb.", "domain:dedicke-pravo"),
        ("soused vylil barvu na moje auto", "40/2009 Sb.", "domain:poskozeni-cizi-veci"),
        ("tatínek má alzheimera a podepsal smlouvu o půjčce", "89/2012 Sb.", "domain:svepravnost-a-opatrovnictvi"),
        ("bývalá manželka nepouští děti k otci", "89/2012 Sb.", "domain:styk-s-ditetem"),
        ("otec se o děti nestará a chci mu omezit rodičovská práva", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("dcera utekla z domova", "359/1999 Sb.", "domain:socialne-pravni-ochrana-deti"),
        ("zaměstnavatel mi strhl ze mzdy škodu na autě", "262/2006 Sb.", "domain:odpovednost-zamestnance"),
        ("včely souseda mě bodají", "89/2012 Sb.", "domain:sousedska-prava"),
        ("nezaplatili mi vyplatu uz dva mesice", "262/2006 Sb.", "domain:odmenovani"),
        ("nemam kde bydlet co mam delat", "175/2025 Sb.", "domain:podpora-bydleni"),
        ("socialni byt jak ho ziskat", "175/2025 Sb.", "domain:podpora-bydleni"),
        ("zmena pohlavi v dokladech", "301/2000 Sb.", "domain:matriky-jmeno"),
        ("koupil jsem kurz online a chci odstoupit", "89/2012 Sb.", "domain:digitalni-obsah"),
        ("Netflix zvýšil cenu bez souhlasu", "89/2012 Sb.", "domain:digitalni-obsah"),
        ("aplikace mi strhla peníze za hru dítěte", "89/2012 Sb.", "domain:digitalni-obsah"),
        ("moje data unikla z e-shopu", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("chci aby firma smazala moje údaje", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("zaměstnavatel chce otisky prstů", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("obec zveřejnila moje jméno na webu", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("asistent pedagoga pro dítě s autismem", "561/2004 Sb.", "domain:skolstvi"),
        ("čekací doba na operaci kyčle", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("starám se o nemocnou mámu a potřebuju volno", "187/2006 Sb.", "domain:nemocenske-pojisteni"),
        ("dříve vyslovené přání", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("pitva bez souhlasu rodiny", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("zdravotní záznamy po smrti otce", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("dítě nevzali do školky kvůli očkování", "258/2000 Sb.", "domain:ochrana-verejneho-zdravi"),
        ("srazil jsem srnu co dělat", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("nehoda bez policie záznam", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("viník nehody nemá pojištění", "30/2024 Sb.", "domain:povinne-ruceni"),
        ("výlet ze školy úraz kdo platí", "561/2004 Sb.", "domain:skolstvi"),
        ("fitko nechce vrátit peníze", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("soused mi zazdil okno", "89/2012 Sb.", "domain:sousedska-prava"),
        ("bratr bydlí v domě po rodičích a nic neplatí", "89/2012 Sb.", "domain:spoluvlastnictvi"),
        ("správce domu nedodal vyúčtování", "67/2013 Sb.", "domain:sluzby-bytu"),
        ("podmínka a další přestupek co hrozí", "40/2009 Sb.", "domain:podminene-odsouzeni"),
        ("zahlazení odsouzení po kolika letech", "40/2009 Sb.", "domain:zahlazeni-odsouzeni"),  # TZ §§ 105-106
        ("prohlídka domu bez povolení", "141/1961 Sb.", "domain:trestni-rizeni"),
        ("odběratel nezaplatil fakturu co dělat", "89/2012 Sb.", "domain:prodleni"),
        ("ústní smlouva je platná", "89/2012 Sb.", "domain:obcanske-pravo"),
        ("firemní auto soukromé použití daň", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("benefity zaměstnanců daňově", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("OSVC vedlejsi cinnost limit", "589/1992 Sb.", "domain:pojistne-socialni"),
        ("ztratil jsem klíče od nájmu kdo platí výměnu zámku", "89/2012 Sb.", "domain:najem"),
        ("dal jsem zálohu na štěně a chovatel ho prodal jinému", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("pes utekl a způsobil nehodu", "89/2012 Sb.", "domain:skoda-zviretem"),
        ("musím mít psa očipovaného", "166/1999 Sb.", "domain:veterinarni-pece"),
        ("prodej auta daň", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("dodavatel poslední instance cena", "458/2000 Sb.", "domain:energetika"),
        ("zálohy na elektřinu zvýšili bez oznámení", "458/2000 Sb.", "domain:energetika"),
        ("sucho zákaz zalévání z vodovodu", "254/2001 Sb.", "domain:vodni-pravo"),
        ("soud rozhodl bez mé přítomnosti", "99/1963 Sb.", "domain:civilni-proces"),
        ("soudce je podjatý námitka", "99/1963 Sb.", "domain:civilni-proces"),
        ("smír u soudu", "99/1963 Sb.", "domain:civilni-proces"),
        ("exekutor si účtuje vysoké náklady", "120/2001 Sb.", "domain:exekuce"),
        ("nečinnost soudu průtahy stížnost", "6/2002 Sb.", "domain:soudnictvi"),
        ("odškodnění za nezákonnou vazbu", "82/1998 Sb.", "domain:odpovednost-statu"),
        ("stát mi způsobil škodu nesprávným úředním postupem", "82/1998 Sb.", "domain:odpovednost-statu"),
        ("obec odmítla zveřejnit smlouvu", "340/2015 Sb.", "domain:registr-smluv"),
        ("zápis ze zastupitelstva nezveřejnili", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("hluk z dálnice protihlukové opatření", "258/2000 Sb.", "domain:ochrana-verejneho-zdravi"),
        ("obec chce prodat školu", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("tata umrel a nechal dluhy co ted", "89/2012 Sb.", "domain:dedicke-pravo"),
        ("babicka chce prepsat byt na vnuka jeste za zivota", "89/2012 Sb.", "domain:darovani"),
        ("manzel si vzal uver bez meho souhlasu", "89/2012 Sb.", "domain:spolecne-dluhy"),
        ("byt koupeny pred svatbou patri komu", "89/2012 Sb.", "domain:manzelstvi"),
        ("svereni ditete prarodicum", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("partner odešel a nechal mi dluhy na společné půjčce", "89/2012 Sb.", "domain:spolecne-dluhy"),
        ("úvěrový registr záznam smazání", "257/2016 Sb.", "domain:spotrebitelsky-uver"),
        ("započtení pohledávky", "89/2012 Sb.", "domain:obcanske-pravo"),
        ("peníze poslané na špatný účet", "370/2017 Sb.", "domain:platebni-styk"),
        ("bankomat nevydal peníze", "370/2017 Sb.", "domain:platebni-styk"),
        ("změna pracoviště bez dodatku", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("snížení mzdy bez souhlasu", "262/2006 Sb.", "domain:odmenovani"),
        ("13. plat nárok", "262/2006 Sb.", "domain:odmenovani"),
        ("pohotovost doma placená", "262/2006 Sb.", "domain:pracovni-doba"),
        ("noční směny zdravotní prohlídka", "262/2006 Sb.", "domain:pracovni-doba"),
        ("BOZP školení povinnost", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("územní rozhodnutí", "283/2021 Sb.", "domain:stavebni-rizeni"),
        ("povolávací rozkaz odmítnutí", "585/2004 Sb.", "domain:branna-povinnost"),
        ("archeologický nález na pozemku", "20/1987 Sb.", "domain:pamatkova-pece"),
        ("detektor kovů hledání povoleno", "20/1987 Sb.", "domain:pamatkova-pece"),
        ("kůň na silnici pravidla", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("týrání koně nahlásit", "246/1992 Sb.", "domain:ochrana-zvirat"),
        ("vlk zabil ovce náhrada", "115/2000 Sb.", "domain:skody-chranenymi-zivocichy"),
        ("bobr poškodil stromy náhrada", "115/2000 Sb.", "domain:skody-chranenymi-zivocichy"),
        ("lov ryb bez povolenky pokuta", "99/2004 Sb.", "domain:rybarstvi"),
        ("šéf mi nedal prachy", "262/2006 Sb.", "domain:odmenovani"),
        ("brácha mi nevrací love", "89/2012 Sb.", "domain:zapujcka"),
        ("fotr mě bije", "40/2009 Sb.", "domain:domaci-nasili"),
        ("dluhy mě žerou", "182/2006 Sb.", "domain:oddluzeni"),
        ("vyhazov z práce bez důvodu", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),
        ("exmanžel nepřispívá na děti", "89/2012 Sb.", "domain:vyzivne"),
        ("někdo mi hacknul insta", "40/2009 Sb.", "domain:neopravneny-pristup-k-pocitaci"),
        ("naměřili mi rychlost 70 v obci", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("odtahovka mi vzala auto", "553/1991 Sb.", "domain:obecni-policie"),
        ("bazar mi prodal šrot", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("vrátil jsem zboží a peníze nepřišly do 14 dnů", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("zboží dorazilo poškozené kdo platí", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("objednal jsem na dobírku a nepřevzal jsem", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("sleva místo opravy", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("dárkový poukaz propadl", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("objednávka zrušena po zaplacení", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("obchod účtoval víc než na cenovce", "634/1992 Sb.", "domain:povinnosti-prodavajiciho"),
        ("podvod na vinted peníze jsem poslal a nic nepřišlo", "40/2009 Sb.", "domain:podvod"),
        ("zásilka se ztratila kdo za to může", "89/2012 Sb.", "domain:preprava"),
        ("revizní lékař pojišťovny", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("psychoterapie hrazená pojišťovnou", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("léčba v zahraničí evropský průkaz", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("lékař mi nedal informace o diagnóze", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("souhlas s operací dítěte jeden rodič", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("potvrzení od lékaře do školy", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("drobné opravy v bytě kdo platí", "89/2012 Sb.", "domain:najem"),
        ("malování bytu při odchodu", "89/2012 Sb.", "domain:najem"),
        ("předávací protokol nesouhlasím", "89/2012 Sb.", "domain:najem"),
        ("Můžu odstoupit od smlouvy o spotřebitelském úvěru do 14 dnů?", "257/2016 Sb.", "domain:spotrebitelsky-uver"),
        ("rezervační smlouva realitka záloha propadla", "89/2012 Sb.", "domain:realitni-zprostredkovani"),
        ("plná moc k prodeji nemovitosti ověřená", "89/2012 Sb.", "domain:plna-moc"),
        ("soused seká trávu v neděli ráno", "89/2012 Sb.", "domain:sousedska-prava"),
        ("cizí auto stojí měsíce na mém pozemku", "89/2012 Sb.", "domain:nemovitosti"),
        ("prodej koťat na internetu", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("celnice mi zadržela balík z Číny", "242/2016 Sb.", "domain:clo"),
        ("musím platit clo za zásilku z USA", "242/2016 Sb.", "domain:clo"),
        ("potřebuji povolení k ohňostroji na svatbu", "206/2015 Sb.", "domain:pyrotechnika"),
        ("můžu odpalovat petardy na Silvestra v obci", "206/2015 Sb.", "domain:pyrotechnika"),
        ("záloha na lahve v obchodě nechtějí vrátit", "477/2001 Sb.", "domain:obaly"),
        ("musí obchod vzít zpět vratné lahve", "477/2001 Sb.", "domain:obaly"),
        ("e-shop má falešné recenze", "634/1992 Sb.", "domain:povinnosti-prodavajiciho"),
        ("firma si platí vymyšlené hodnocení na Googlu", "634/1992 Sb.", "domain:povinnosti-prodavajiciho"),
        ("manžel pije, můžu ho nechat povinně léčit?", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("drogově závislý syn léčba", "372/2011 Sb.", "domain:zdravotni-sluzby"),
        ("soud nařídil ochranné léčení alkoholismu", "40/2009 Sb.", "domain:trestni-pravo"),
        ("chci se doma starat o mámu po mrtvici, dostanu peníze", "108/2006 Sb.", "domain:socialni-sluzby"),
        ("soused pálí plasty v kamnech", "201/2012 Sb.", "domain:ochrana-ovzdusi"),
        ("prodávají v trafice alkohol dětem", "65/2017 Sb.", "domain:navykove-latky"),
        ("kamarád mi neplatí za prodaný mobil", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("Ukrajinka chce u nás pracovat jako uklízečka", "65/2022 Sb.", "domain:docasna-ochrana"),
        ("inkasní agentura mi vyhrožuje", "89/2012 Sb.", "domain:obcanske-pravo"),
        ("jsem těhotná a šéf mi chce dát výpověď", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),
        ("spolužák šikanuje mého syna, co musí udělat škola", "561/2004 Sb.", "domain:skolstvi"),
        ("soused mi parkuje před garáží", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("koupila jsem v akci boty a po týdnu se rozpadly", "89/2012 Sb.", "domain:prodej-zbozi-v-obchode"),
        ("kadeřnice mi spálila vlasy chci náhradu", "89/2012 Sb.", "domain:dilo"),
        ("čistírna mi zničila kabát", "89/2012 Sb.", "domain:dilo"),
        ("autoservis mi účtoval opravy které jsem neobjednal", "89/2012 Sb.", "domain:dilo"),
        ("nemám na nájem, jaké dávky můžu dostat", "117/1995 Sb.", "domain:statni-socialni-podpora"),
        ("chci si vzít psa z útulku co potřebuju", "246/1992 Sb.", "domain:ochrana-zvirat"),
        ("ulice není uklizená od sněhu kdo je zodpovědný", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("spadl jsem na náledí na chodníku", "13/1997 Sb.", "domain:dalnicni-poplatek"),
        ("sef me nuti delat pres cas bez priplatku", "262/2006 Sb.", "domain:pracovni-doba"),
        ("mam narok na obed v praci", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("chci pracovat z domu, musi mi to sef dovolit", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("dostal jsem vytku za pozdni prichody", "262/2006 Sb.", "domain:skonceni-pracovniho-pomeru"),
        ("babička chce vidět vnuka a dcera jí to zakazuje", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("chci si vzít zpět dívčí jméno", "301/2000 Sb.", "domain:matriky-jmeno"),
        ("prodal jsem auto a kupec ho nepřepsal", "56/2001 Sb.", "domain:registrace-vozidel"),
        ("při nehodě na kole jsem si zlomil ruku", "89/2012 Sb.", "domain:nahrada-skody"),
        ("policajt mě zastavil a chtěl dýchnout", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("kdo může být svědek na svatbě", "89/2012 Sb.", "domain:manzelstvi"),
        ("zástava auta za půjčku", "89/2012 Sb.", "domain:zastavni-pravo"),
        ("prodávám na trhu zeleninu z vlastní zahrady", "455/1991 Sb.", "domain:zivnostenske-podnikani"),
        ("chci pronajímat byt přes airbnb", "455/1991 Sb.", "domain:zivnostenske-podnikani"),
        ("krátkodobý pronájem airbnb v bytovém domě", "89/2012 Sb.", "domain:bytove-spoluvlastnictvi"),
        ("vyhrál jsem v loterii daň", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("pohotovost poplatek", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("můžu se u soudu zastupovat sám", "99/1963 Sb.", "domain:civilni-proces"),
        ("můžu natáčet jednání zastupitelstva", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("můžu nosit pepřový sprej", "90/2024 Sb.", "domain:zbrane"),
        ("soused střílí ze vzduchovky na kočky", "246/1992 Sb.", "domain:ochrana-zvirat"),
        ("chci mít doma pavouka sklípkana povolení", "246/1992 Sb.", "domain:ochrana-zvirat"),
        ("našel jsem zraněného ježka kam s ním", "114/1992 Sb.", "domain:ochrana-prirody"),
        ("pojišťovna mi zamítla plnění z úrazového pojištění", "89/2012 Sb.", "domain:pojisteni"),
        ("bouračka bez viny kdo platí půjčení auta", "30/2024 Sb.", "domain:povinne-ruceni"),
        ("dovoz auta z ciziny registrace", "56/2001 Sb.", "domain:registrace-vozidel"),
        ("elektrokolo potřebuje pojištění", "30/2024 Sb.", "domain:povinne-ruceni"),
        ("hotel neodpovídal popisu zájezdu", "89/2012 Sb.", "domain:zajezd"),
        ("chci prodat dům, co všechno potřebuju", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("koupil jsem dům a objevila se plíseň ve sklepě", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("hranice pozemku nesouhlasí s mapou", "256/2013 Sb.", "domain:katastr-nemovitosti"),
        ("chci rozdělit pozemek na dva", "283/2021 Sb.", "domain:stavebni-rizeni"),
        ("odpojili nám vodu kvůli dluhu předchozího majitele", "274/2001 Sb.", "domain:vodovody-kanalizace"),
        ("energetický štítek při prodeji bytu", "406/2000 Sb.", "domain:energeticka-narocnost-budov"),
        ("průkaz energetické náročnosti při pronájmu", "406/2000 Sb.", "domain:energeticka-narocnost-budov"),
        (
            "Soused mi při práci na zahradě rozbil okno. Musí mi škodu zaplatit?",
            "89/2012 Sb.",
            "domain:povinnost-nahradit-skodu",
        ),
        ("dítě souseda rozbilo míčem auto, zaplatí rodiče?", "89/2012 Sb.", "domain:skoda-nesvepravnym"),
        ("rampouch spadl ze střechy na auto", "89/2012 Sb.", "domain:skoda-veci"),
        ("zaparkované auto mi někdo naboural a ujel", "89/2012 Sb.", "domain:skoda-z-provozu-dopravnich-prostredku"),
        ("soused si půjčil žebřík a rozbil ho", "89/2012 Sb.", "domain:vypujcka"),
        ("řemeslník odvedl špatnou práci a nechce to opravit", "89/2012 Sb.", "domain:vady-dila"),
        ("malíř vymaloval byt a barva se loupe", "89/2012 Sb.", "domain:vady-dila"),
        ("pronajímatel mi nechce vrátit kauci", "89/2012 Sb.", "domain:jistota-najem"),
        ("kauce tři nájmy je to legální", "89/2012 Sb.", "domain:jistota-najem"),
        ("nájemník zemřel co s věcmi v bytě", "89/2012 Sb.", "domain:prechod-najmu"),
        ("podnájem bez souhlasu pronajímatele", "89/2012 Sb.", "domain:podnajem"),
        ("nájemní smlouva na dobu určitou prodloužení automaticky", "89/2012 Sb.", "domain:najem"),
        ("kdo platí opravu kotle v nájemním bytě", "89/2012 Sb.", "domain:najem"),
        ("hospoda nechce vrátit kauci za sklo", "477/2001 Sb.", "domain:obaly"),
        ("finanční poradce mi špatně poradil a přišel jsem o peníze", "89/2012 Sb.", "domain:skoda-z-rady"),
        ("odškodnění pozůstalých po smrti manžela", "89/2012 Sb.", "domain:ujma-na-zdravi"),
        ("kolik je bolestné za zlomenou nohu", "89/2012 Sb.", "domain:ujma-na-zdravi"),
        ("odběr orgánů po smrti nesouhlas", "285/2002 Sb.", "domain:transplantace"),
        ("návštěva ve vězení jak často", "169/1999 Sb.", "domain:vykon-trestu"),
        ("otevřít obchod v neděli zákaz", "223/2016 Sb.", "domain:prodejni-doba"),
        ("otevírací doba o svátcích zákaz prodeje", "223/2016 Sb.", "domain:prodejni-doba"),
        ("krysy v domě a majitel nic nedělá", "258/2000 Sb.", "domain:ochrana-verejneho-zdravi"),
        ("youtuber použil moji fotku", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("licence na software ve firmě", "121/2000 Sb.", "domain:autorske-pravo"),
        ("lyžařský kurz škola platba", "561/2004 Sb.", "domain:skolstvi"),
        ("kamarádka mi nevrátila šaty", "89/2012 Sb.", "domain:vypujcka"),
        ("alkoholik léčba nařízená soudem", "40/2009 Sb.", "domain:trestni-pravo"),
        ("kdo spravuje majetek obce", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("kolik stojí převod bytu u notáře", "358/1992 Sb.", "domain:notarstvi"),
        ("po úrazu nemůžu pracovat a pojišťovna neplatí", "89/2012 Sb.", "domain:pojisteni"),
        ("bývalý přítel mě pořád sleduje a píše mi", "40/2009 Sb.", "domain:nebezpecne-pronasledovani"),
        ("vzal jsem si úvěr na cizí jméno", "40/2009 Sb.", "domain:uverovy-podvod"),
        ("propustili ho z vazby na kauci", "141/1961 Sb.", "domain:trestni-rizeni"),
        ("pracující důchodce sleva na dani", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("promlčený dluh vymáhá inkaso", "89/2012 Sb.", "domain:promlceni"),
        ("soused týrá psa, co mu za to hrozí, nechal ho hladovět", "40/2009 Sb.", "domain:tyrani-zvirat-trestny-cin"),
        ("smrtelná nehoda na přechodu trest", "40/2009 Sb.", "domain:usmrceni-z-nedbalosti"),
        ("vědomě mě nakazil HIV", "40/2009 Sb.", "domain:sireni-nakazlive-nemoci"),
        ("někdo vyhodil pytle s odpadem do lesa, je to přestupek", "251/2016 Sb.", "domain:verejny-poradek"),
        ("soused mi svítí do oken reflektorem", "89/2012 Sb.", "domain:sousedska-prava"),
        ("kočka se zatoulala a někdo si ji nechal", "89/2012 Sb.", "domain:nalez"),
        ("nájemní smlouva skončila a nájemník tam pořád bydlí", "89/2012 Sb.", "domain:skonceni-najmu"),
        ("koupil jsem psa a po týdnu umřel", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("zahlazení přestupku z evidence řidiče", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("banka zůstala zapsaná v katastru po splacení hypotéky", "89/2012 Sb.", "domain:zastavni-pravo"),
        ("ukradli mi kolo ze sklepa, zaplatí to pojištění domácnosti", "89/2012 Sb.", "domain:pojisteni"),
        ("můžu natáčet policistu při zásahu", "273/2008 Sb.", "domain:policie"),
        ("zaměstnavatel mi strhává z výplaty za rozbitou věc", "262/2006 Sb.", "domain:odpovednost-zamestnance"),
        ("soused užívá můj pozemek dvacet let", "89/2012 Sb.", "domain:vydrzeni"),
        ("prodal jsem byt za tři roky platím daň", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("sociální byt od obce", "175/2025 Sb.", "domain:podpora-bydleni"),
        ("můžu pracovat na dvě smlouvy najednou", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("chci jít na zkrácený úvazek kvůli dítěti", "262/2006 Sb.", "domain:pracovni-doba"),
        ("bývalá mi nedovolí vidět dítě", "89/2012 Sb.", "domain:styk-s-ditetem"),
        ("dítě chce bydlet u táty, může si vybrat", "89/2012 Sb.", "domain:rodinne-pravo"),
        ("kdo platí výměnu bojleru v nájmu", "89/2012 Sb.", "domain:najem"),
        ("přes můj pozemek chodí lidi", "89/2012 Sb.", "domain:ochrana-vlastnictvi"),
        ("ukradli mi identitu a vzali si pujcku", "40/2009 Sb.", "domain:uverovy-podvod"),
        ("nekdo mi posila vyhruzne zpravy", "40/2009 Sb.", "domain:nebezpecne-vyhrozovani"),
        ("jel jsem na červenou, kolik zaplatím", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("pojišťovna neproplatí léčbu", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("neproplatí mi cestovní pojištění léčbu v zahraničí", "89/2012 Sb.", "domain:pojisteni"),
        ("jak založit eseročko", "90/2012 Sb.", "domain:obchodni-korporace"),
        ("společník chce odejít z firmy", "90/2012 Sb.", "domain:obchodni-korporace"),
        ("fakturace bez IČO", "455/1991 Sb.", "domain:zivnostenske-podnikani"),
        ("splátkový kalendář s exekutorem", "120/2001 Sb.", "domain:exekuce"),
        ("chci vystoupit na zastupitelstvu", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("nepřevzal jsem doporučený dopis od úřadu", "500/2004 Sb.", "domain:spravni-rizeni"),
        ("fikce doručení", "500/2004 Sb.", "domain:spravni-rizeni"),
        ("dluh u operatora prodali inkasu", "89/2012 Sb.", "domain:obcanske-pravo"),
        ("nehoda na parkovisti kdo je vinik", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("pojistovna nechce platit za bouracku", "30/2024 Sb.", "domain:povinne-ruceni"),
        ("řízení pod vlivem trávy", "40/2009 Sb.", "domain:ohrozeni-pod-vlivem"),
        ("drogy pro vlastni potrebu kolik", "40/2009 Sb.", "domain:drogy"),
        ("pálení slivovice pro vlastní potřebu", "353/2003 Sb.", "domain:spotrebni-dane"),
        ("povolení na koncert pod širým nebem", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("pouliční muzikant potřebuje povolení", "128/2000 Sb.", "domain:obecni-samosprava"),
        ("koupání v přehradě zákaz", "254/2001 Sb.", "domain:vodni-pravo"),
        ("loď na řece potřebuju průkaz", "114/1995 Sb.", "domain:vnitrozemska-plavba"),
        ("vyhození starého gauče kam", "541/2020 Sb.", "domain:odpady"),
        ("chráněný strom na pozemku", "114/1992 Sb.", "domain:ochrana-prirody"),
        ("poplatek OSA za veřejnou produkci hudby", "121/2000 Sb.", "domain:autorske-pravo"),
        ("babička v LDN kdo platí", "48/1997 Sb.", "domain:zdravotni-pojisteni"),
        ("cizinec chce občanství", "186/2013 Sb.", "domain:statni-obcanstvi"),
        ("záložník povinnost", "585/2004 Sb.", "domain:branna-povinnost"),
        ("dítě utíká z domova", "359/1999 Sb.", "domain:socialne-pravni-ochrana-deti"),
        ("dítě nakupuje online bez svolení", "89/2012 Sb.", "domain:digitalni-obsah"),
        ("hotel mi zrušil rezervaci a chce storno poplatek", "89/2012 Sb.", "domain:ubytovani"),
        ("ukradli mi věci z hotelového pokoje kdo odpovídá", "89/2012 Sb.", "domain:ubytovani"),
        ("kolik let za podvod s pojistkou", "40/2009 Sb.", "domain:pojistny-podvod"),
        ("trest za řízení opilý podruhé", "40/2009 Sb.", "domain:ohrozeni-pod-vlivem"),
        ("kdy se trest zahladí", "40/2009 Sb.", "domain:zahlazeni-odsouzeni"),
        ("kdy se mi zahladí body", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("sousedův strom mi padl na auto", "89/2012 Sb.", "domain:skoda-veci"),
        ("smlouva uzavřená s nezletilým platí?", "89/2012 Sb.", "domain:svepravnost-nezletilych"),
        ("reklamace po šesti měsících kdo dokazuje vadu", "89/2012 Sb.", "domain:prodej-zbozi-v-obchode"),
        ("obchod opravoval třikrát a pořád to nefunguje", "89/2012 Sb.", "domain:prodej-zbozi-v-obchode"),
        ("zboží jiné než na obrázku", "89/2012 Sb.", "domain:prodej-zbozi-v-obchode"),
        ("koupil jsem ojeté auto a po měsíci se rozbila převodovka", "89/2012 Sb.", "domain:kupni-smlouva"),
        ("odstoupení od smlouvy u zakázkové výroby", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("fitness centrum mi nechce zrušit členství", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("nabídka v letáku neplatila", "634/1992 Sb.", "domain:povinnosti-prodavajiciho"),
        ("zadržení na 48 hodin", "141/1961 Sb.", "domain:trestni-rizeni"),
        ("odškodnění obětí trestných činů", "45/2013 Sb.", "domain:obeti-trestnych-cinu"),
        ("lživá výpověď svědka", "40/2009 Sb.", "domain:krive-obvineni"),
        ("banka mi nechce vydat peníze z účtu zesnulého", "292/2013 Sb.", "domain:pozustalostni-rizeni"),
        ("kontokorent poplatky", "257/2016 Sb.", "domain:spotrebitelsky-uver"),
        ("kolik hotovosti můžu převézt přes hranice", "242/2016 Sb.", "domain:clo"),
        ("zlato koupit bez daně", "235/2004 Sb.", "domain:dph"),
        ("směna peněz na ulici podvod", "277/2013 Sb.", "domain:smenarny"),
        ("vyměnil jsem peníze a chci je vrátit", "277/2013 Sb.", "domain:smenarny"),
        ("konkurence mi píše falešné recenze", "89/2012 Sb.", "domain:nekala-soutez"),
        ("konkurent napodobil naše logo", "89/2012 Sb.", "domain:nekala-soutez"),
        ("bývalý zaměstnanec vynesl obchodní tajemství", "89/2012 Sb.", "domain:nekala-soutez"),
        ("zrušili autobusový spoj do naší vesnice", "194/2010 Sb.", "domain:verejna-doprava"),
        ("dopravce zrušil autobusový spoj", "194/2010 Sb.", "domain:verejna-doprava"),
        ("pronajímatel nechce opravit plíseň", "89/2012 Sb.", "domain:najem"),
        ("kdo platí opravu balkonu v bytovém domě", "89/2012 Sb.", "domain:bytove-spoluvlastnictvi"),
        ("kolega mě šikanuje a šéf nic nedělá", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("zaměstnavatel nezaplatil sociální pojištění", "589/1992 Sb.", "domain:pojistne-socialni"),
        ("myčka poškrábala auto", "89/2012 Sb.", "domain:skoda-na-prevzate-veci"),
        ("autoservis mi poškodil auto při opravě", "89/2012 Sb.", "domain:skoda-na-prevzate-veci"),
        ("spadl jsem v obchodě na mokré podlaze", "89/2012 Sb.", "domain:povinnost-nahradit-skodu"),
        ("kdo odpovídá za úraz dítěte na hřišti", "89/2012 Sb.", "domain:povinnost-nahradit-skodu"),
        ("zubař mi zkazil zub", "89/2012 Sb.", "domain:ujma-na-zdravi"),
        ("kočka souseda mi zabila slepice", "89/2012 Sb.", "domain:skoda-zviretem"),
        ("opilej soused rozbil dvere", "89/2012 Sb.", "domain:povinnost-nahradit-skodu"),
        ("deti souseda mi rozbili okno", "89/2012 Sb.", "domain:skoda-nesvepravnym"),
        ("volební moratorium průzkumy", "88/2024 Sb.", "domain:volby"),
        ("host utekl bez placení", "40/2009 Sb.", "domain:podvod"),
        ("trest za řízení bez řidičského oprávnění opakovaně", "361/2000 Sb.", "domain:silnicni-provoz"),
        ("je trestné nosit nůž", "90/2024 Sb.", "domain:zbrane"),
        ("trest za výrobu zbraně bez povolení", "40/2009 Sb.", "domain:nedovolene-ozbrojovani"),
        ("trest za nezaplacení DPH", "40/2009 Sb.", "domain:zkraceni-dane"),
        ("může otec zakázat stěhování dítěte do zahraničí", "89/2012 Sb.", "domain:vykon-rodicovske-odpovednosti"),
        ("pas pro dítě bez souhlasu otce", "89/2012 Sb.", "domain:vykon-rodicovske-odpovednosti"),
        ("hrozí mi vystěhování kam se obrátit", "175/2025 Sb.", "domain:podpora-bydleni"),
        ("exekutor mi hrozí vystěhováním z domu", "120/2001 Sb.", "domain:exekuce"),
        ("koupil jsem na AliExpressu a přišla falešná věc", "89/2012 Sb.", "domain:spotrebitelske-smlouvy"),
        ("pracovat v Německu a daně", "586/1992 Sb.", "domain:dane-z-prijmu"),
        ("dovoz alkoholu z Polska kolik můžu", "353/2003 Sb.", "domain:spotrebni-dane"),
        ("svatba v zahraničí uznání v ČR", "301/2000 Sb.", "domain:matriky-jmeno"),
        ("uznání zahraničního rozsudku o rozvodu", "91/2012 Sb.", "domain:mezinarodni-pravo-soukrome"),
        ("kamera v šatně na koupališti", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("e-shop mi prodal údaje dalším firmám", "nařízení (EU) 2016/679", "domain:ochrana-osobnich-udaju"),
        ("učitel natáčí děti při hodině", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("deepfake video se mnou", "89/2012 Sb.", "domain:ochrana-osobnosti"),
        ("GPS ve služebním autě sledování", "262/2006 Sb.", "domain:pracovni-pravo"),
        ("důchodce a brigáda daně", "586/1992 Sb.", "domain:dane-z-prijmu"),
        (
            "autobus do zahraničí zpoždění práva cestujících",
            "nařízení (EU) č. 181/2011",
            "domain:prava-cestujicich-v-autobusove-doprave",
        ),
        (
            "FlixBus zrušil spoj do Berlína",
            "nařízení (EU) č. 181/2011",
            "domain:prava-cestujicich-v-autobusove-doprave",
        ),
    ],
)
def test_a_citizens_question_reaches_its_area(question, citation, area):
    act = governing_acts(question)[0]
    assert (act.citation, act.area) == (citation, area)


@pytest.mark.parametrize(
    "question, wrong",
    [
        ("kolik je příspěvek na bydlení", "176/2025 Sb."),  # it amends other acts; the benefit is 117/1995 Sb.'s
        ("soudní znalec posudek", "285/2025 Sb."),  # the experts act's amendment, not the experts act
        ("ministerstvo obrany", "40/2009 Sb."),  # no "nutná": no self-defence
        ("Za jak dlouho se promlčí právo vymáhat dluh?", "99/1963 Sb."),
        ("Kam nahlásit, že soused týrá koně?", "40/2009 Sb."),
        ("jaká pravidla platí pro stavbu plotu", "262/2006 Sb."),  # "platí" applies: no salary
        ("platí smlouva uzavřená ústně", "262/2006 Sb."),
        ("volný pohyb psa v obci", "565/1990 Sb."),  # a town's rules for dogs, not its dog fee
        ("milostivé léto", "1/1993 Sb."),  # a debt amnesty, not the president's pardon
        ("muze soud rozhodnout ze jsem se osvedcil jeste nez skonci zkusebni doba podminky?", "262/2006 Sb."),
        ("OSVČ zálohy na pojištění", "586/1992 Sb."),  # the premiums' acts, not income tax for its "OSVČ"
        ("platí se ještě daň z nabytí bytu", "338/1992 Sb."),  # the yearly real-estate tax is another tax
        ("firma zkrachovala a dluží mi peníze za zboží", "118/2000 Sb."),  # a creditor, not an employee
        ("za kolik let se promlčí dluh", "nařízení (ES) č. 261/2004"),  # "let": years, not a flight
        ("ztratili mi kufr na letišti", "nařízení (ES) č. 261/2004"),  # lost luggage: the Montreal Convention's
        ("sousedi kazdou noc po pulnoci pousti hudbu", "121/2000 Sb."),  # the neighbours' noise, not copyright
        ("Kdo vyhrál poptávkové řízení na radarové ukazatele rychlosti?", "361/2000 Sb."),  # a town's purchase
        ("pes souseda zabil moji slepici", "40/2009 Sb."),  # an animal killed by a dog: no murder
        ("policie me zastavila na silnici", "89/2012 Sb."),  # stopped by the police, not a pledge ("zástava")
        ("zastavit exekuci", "89/2012 Sb."),
        ("odkaz na paragraf v zakone", "89/2012 Sb."),  # a reference, not a legacy
        ("Jak dlouho má manžel na to, aby otcovství u soudu napadl?", "40/2009 Sb."),  # contested, not assaulted
        ("dopravce zrušil autobusový spoj", "89/2012 Sb."),  # a bus service, not the carriage of goods
        ("manžel mi vyhrožuje že mi vezme děti", "359/1999 Sb."),
        (
            "děda byl odsouzen protože kvůli své víře odmítl nastoupit na vojenské cvičení",
            "198/2009 Sb.",
        ),  # a husband's threat, not the child protection office
        ("kominik revize komina", "467/2025 Sb."),  # the fire prevention decree's amendment says nothing of chimneys
        ("firma používá moji fotku jak dlouho smí", "121/2000 Sb."),  # a licence's term (OZ), no copyright claim
        ("v práci odvádím špatnou práci a šéf mi chce dát výpověď", "89/2012 Sb."),  # an employee, not a work's maker
        ("zamkl jsem se venku a nemám klíče", "40/2009 Sb."),  # locked out, not locked in
        ("kamarád prohrál sázku a nechce zaplatit", "99/1963 Sb."),  # a lost bet, not a lost lawsuit
        ("pes měl horečku, kolik stojí veterinář", "262/2006 Sb."),  # a dog's fever, not a worker's
        ("otevřít obchod v neděli zákaz", "455/1991 Sb."),  # shops' Sunday hours are another act's
        ("firma chce restrukturalizaci a ja jsem veritel", "182/2006 Sb."),  # preventive restructuring's own act
        ("prezident odmita jmenovat ministra", "236/1995 Sb."),  # an appointment, not a minister's pay
        ("dostal jsem pokutu za něco co jsem neudělal", "40/2009 Sb."),  # a fine disputed, no false accusation
        ("partner mi čte e-maily", "262/2006 Sb."),  # a partner reading one's mail is no employer
        ("kolik zaplatím na zdravotním jako živnostník", "589/1992 Sb."),  # health premiums, not social security's
        ("kdy platit daň z pozemku", "586/1992 Sb."),  # the land's own tax, not the income from selling it
        ("konkurent používá naši ochrannou známku", "561/2004 Sb."),  # a trade mark, not a school's mark
        ("otec se o děti nestará a chci mu omezit rodičovská práva", "117/1995 Sb."),  # parents' rights, no benefit
        ("domácí péče o rodiče volno z práce", "166/1999 Sb."),  # a parent's care, not a vet's
        ("odběratel nezaplatil fakturu co dělat", "235/2004 Sb."),  # an unpaid invoice is a debt, not VAT
        ("soutěž na facebooku podmínky", "40/2009 Sb."),  # a contest's terms, not a suspended sentence
        ("obec chce poplatek za psa", "128/2000 Sb."),  # a local fee's own act, not the municipalities act
        ("dárkový poukaz propadl", "561/2004 Sb."),  # a voucher expired, not a pupil failed
        ("soused seká trávu v neděli ráno", "191/1950 Sb."),  # mowing, not a bill of exchange
        ("musí obchod vzít zpět vratné lahve", "89/2012 Sb."),  # returnable bottles, not a gift
        ("koupila jsem v akci boty a po týdnu se rozpadly", "21/1992 Sb."),  # a sale's offer, not shares
        ("s přítelkyní se chceme vzít, musí u toho být svědci?", "141/1961 Sb."),  # a wedding's witnesses
        ("můžu nosit pepřový sprej", "40/2009 Sb."),  # a defence spray, not a sprayer's graffiti
        ("pojišťovna mi zamítla plnění z úrazového pojištění", "48/1997 Sb."),  # private insurance, not health
        ("bouračka bez viny kdo platí půjčení auta", "89/2012 Sb."),  # a replacement car, not a loan of a thing
        ("syn si vzal půjčku a teď chtějí peníze po mně", "40/2009 Sb."),  # a son's own loan, no credit fraud
        ("pošta ztratila doporučený dopis náhrada", "500/2004 Sb."),  # the post's loss, no office's delivery
        ("koupil jsem loď přes bazar a má díru", "114/1995 Sb."),  # a purchase's defect, not navigation
        ("vyměnil jsem auto za motorku", "277/2013 Sb."),  # a swap of things, not a currency exchange
    ],
)
def test_a_question_is_not_routed_to_a_neighbouring_act(question, wrong):
    assert wrong not in {a.citation for a in governing_acts(question)}


def test_a_blocked_account_is_no_seizure():
    assert "120/2001 Sb." not in {a.citation for a in governing_acts("banka mi zablokovala účet")}


@pytest.mark.parametrize(
    "question, spelled",
    [
        ("jak založit s.r.o.", "jak založit společnost s ručením omezeným"),
        ("ČEZ, a. s. dividenda", "ČEZ, akciová společnost dividenda"),
        ("spol. s r.o. jednatel", "společnost s ručením omezeným jednatel"),
        ("Z.S. stanovy", "zapsaný spolek stanovy"),
        ("prodej a.s.x", "prodej a.s.x"),  # no legal form where a word runs on
    ],
)
def test_a_dotted_legal_form_is_routed_as_its_words(question, spelled):
    from serving.query.governing import with_legal_forms_spelled

    assert with_legal_forms_spelled(question) == spelled


def test_founding_an_s_r_o_names_the_companies_act():
    act = governing_acts("jak založit s.r.o.")[0]
    assert act.citation == "90/2012 Sb." and act.sure_enough_to_say_missing


@pytest.mark.parametrize(
    "question, not_area",
    [
        ("kdo spravuje majetek obce", "domain:sprava-ciziho-majetku"),  # the town's property: not a trustee's
        ("kupní smlouva na pozemek", "domain:stavba-na-cizim-pozemku"),
        ("lhůta na odvolání proti rozsudku", "domain:pocitani-casu"),
        ("dluhy manželů po rozvodu", "domain:spolecne-dluhy"),
        ("jak se počítá lhůta na reklamaci", "domain:pocitani-casu"),  # how long a claim lasts, not the calendar
        ("co mi náleží po rozvodu", "domain:nalez"),  # "náleží" and "nález" fold to one term
        ("přestal jsem splácet hypotéku, může banka prodat dům v zástavě", "domain:manzelstvi"),  # no divorce
        ("bývalý přítel mě pořád sleduje a píše mi", "domain:skoda-z-rady"),  # "pořád" folds like "poradil"
        ("propustili ho z vazby na kauci", "domain:jistota-najem"),  # bail, not a tenant's deposit
        ("mám kapavku kde se léčit", "domain:sireni-nakazlive-nemoci"),  # a treatment, no crime
        ("komár mě pokousal alergie", "domain:skoda-zviretem"),  # an insect's bite, no keeper's liability
        ("zničil mi život a odešel", "domain:povinnost-nahradit-skodu"),  # a broken heart, no damages
        ("zahlazení přestupku z evidence řidiče", "domain:zahlazeni-odsouzeni"),  # a driver's points, no sentence
        ("lékař mi nedovolí vidět dítě v nemocnici", "domain:styk-s-ditetem"),  # a ward's rules, no ex-partner
        ("rozbitý bojler v novém domě reklamace", "domain:najem"),  # one's own house: no landlord
        ("řemeslník nechce opravit plíseň po rekonstrukci", "domain:najem"),  # a tradesman's work, no landlord
        ("soused mi při opravě střechy poškodil auto", "domain:skoda-na-prevzate-veci"),  # no car handed over
    ],
)
def test_a_neighbouring_part_of_the_code_is_not_named(question, not_area):
    assert all(act.area != not_area for act in governing_acts(question))
