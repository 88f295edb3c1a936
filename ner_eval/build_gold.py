"""Build ``gold/sample_gold.jsonl`` from hand-annotated tables.

Each record is a real passage from the bundled sample corpus (PDF text layers
extracted with pdfplumber, decision texts, raw CSV/JSONL lines) and the
entities a careful annotator marks in it, following ``GUIDELINES.md``. Only
surfaces are typed here; offsets are computed by locating each surface after
the previous one, so a wrong surface fails loudly instead of drifting.

Run ``python -m ner_eval.build_gold`` to rewrite the JSONL.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

LAW = "LAW_REF"
DEC = "DECISION_REF"
GOLD_PATH = Path(__file__).resolve().parent / "gold" / "sample_gold.jsonl"


@dataclass(frozen=True)
class Record:
    id: str
    source: str
    text: str
    entities: list[tuple[str, str, str | None]]  # (surface, label, norm), in text order


def locate(record: Record) -> list[dict]:
    """Entities with offsets; each surface is searched after the previous one."""
    found, pos = [], 0
    for surface, label, norm in record.entities:
        start = record.text.find(surface, pos)
        if start < 0:
            raise ValueError(f"{record.id}: {surface!r} not found after offset {pos}")
        end = start + len(surface)
        found.append({"start": start, "end": end, "label": label, "text": surface, "norm": norm})
        pos = end
    return found


def build_lines(records: list[Record] | None = None) -> list[str]:
    records = RECORDS if records is None else records
    ids = [r.id for r in records]
    if len(ids) != len(set(ids)):
        raise ValueError("duplicate record ids")
    return [json.dumps({"id": r.id, "source": r.source, "text": r.text, "entities": locate(r)}, ensure_ascii=False)
            for r in records]


def main(path: Path = GOLD_PATH) -> None:
    lines = build_lines()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} records to {path}")


RECORDS: list[Record] = [
    Record("esb-270-01", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "1. V § 34 odst. 1 písm. a) se za slovo „trestu,“ vkládají slova „trestný čin vraždy (§ 140)“.",
           [
               ("§ 34 odst. 1 písm. a)", LAW, "§ 34 odst. 1 písm. a)"),
               ("§ 140", LAW, "§ 140"),
           ]),
    Record("esb-270-02", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "5. V § 40 odst. 2, § 83 odst. 1 písm. d) a v § 86 odst. 1 písm. d) se číslo „4“ nahrazuje číslem „5“.",
           [
               ("§ 40 odst. 2, § 83 odst. 1 písm. d)", LAW, "§ 40 odst. 2"),
               ("§ 86 odst. 1 písm. d)", LAW, "§ 86 odst. 1 písm. d)"),
           ]),
    Record("esb-270-03", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "kterým se mění zákon č. 40/2009 Sb.,\ntrestní zákoník, ve znění pozdějších předpisů,\nzákon č. 141/1961 Sb., o trestním\nřízení soudním (trestní řád), ve znění\npozdějších předpisů, a další",
           [
               ("zákon č. 40/2009 Sb.,\ntrestní zákoník", LAW, "40/2009 Sb."),
               ("zákon č. 141/1961 Sb.", LAW, "141/1961 Sb."),
           ]),
    Record("esb-270-04", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "12. V § 56 odst. 2 písm. b) se za text „(§ 14 odst. 3)“ vkládají slova „uvedený v hlavě první, hlavě\ndruhé dílu prvním, hlavě třetí, čtvrté, sedmé, deváté, dvanácté nebo třinácté zvláštní části tohoto\nzákona“.",
           [
               ("§ 56 odst. 2 písm. b)", LAW, "§ 56 odst. 2 písm. b)"),
               ("§ 14 odst. 3", LAW, "§ 14 odst. 3"),
           ]),
    Record("esb-270-05", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "z okolností uvedených v § 88 odst. 2 písm. b) bodech 1 až 6,",
           [
               ("§ 88 odst. 2 písm. b) bodech 1 až 6", LAW, "§ 88 odst. 2 písm. b) bod 1"),
           ]),
    Record("esb-270-06", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "Čl. I\nZákon č. 40/2009 Sb., trestní zákoník, ve znění zákona č. 306/2009 Sb.,",
           [
               ("Zákon č. 40/2009 Sb., trestní zákoník", LAW, "40/2009 Sb."),
               ("zákona č. 306/2009 Sb.", LAW, "306/2009 Sb."),
           ]),
    Record("esb-270-07", "sample_corpus/esbirka/pdf/270-2025.pdf",
           "9. V § 53 odst. 1 větě poslední se za slovo „propadnutí“ vkládá slovo „celého“.",
           [
               ("§ 53 odst. 1 větě poslední", LAW, "§ 53 odst. 1"),
           ]),
    Record("esb-234-01", "sample_corpus/esbirka/pdf/234-2025.pdf",
           "Na volební kampaň ve volbách do zastupitelstev obcí se nepoužijí § 3 odst. 3, § 4 odst. 1, část třetí\na § 24 odst. 1 písm. c).",
           [
               ("§ 3 odst. 3, § 4 odst. 1", LAW, "§ 3 odst. 3"),
               ("§ 24 odst. 1 písm. c)", LAW, "§ 24 odst. 1 písm. c)"),
           ]),
    Record("esb-234-02", "sample_corpus/esbirka/pdf/234-2025.pdf",
           "(2) Tento zákon dále upravuje v návaznosti na přímo použitelný předpis Evropské unie1)\na) působnost správních orgánů a jejich spolupráci v oblasti politické reklamy podle nařízení\nEvropského parlamentu a Rady (EU) 2024/900 ze dne 13. března 2024 o transparentnosti\na cílení politické reklamy (dále jen „nařízení“),",
           [
               ("nařízení\nEvropského parlamentu a Rady (EU) 2024/900", LAW, "nařízení (EU) 2024/900"),
           ]),
    Record("esb-234-03", "sample_corpus/esbirka/pdf/234-2025.pdf",
           "§ 1\nPředmět úpravy\n(1) Tento zákon upravuje",
           [
           ]),
    Record("esb-234-04", "sample_corpus/esbirka/pdf/234-2025.pdf",
           "(8) Volebním účtem se pro účely tohoto zákona rozumí platební účet zřizovaný kandidující volební\nstranou nebo registrovanou třetí osobou pro financování volební kampaně umožňující bez-\nplatný a nepřetržitý přístup třetích osob k zobrazování přehledu všech platebních transakcí\nna tomto účtu uskutečněných od jeho zřízení do uplynutí doby uvedené v § 7 odst. 8 nebo § 13\nodst. 2.",
           [
               ("§ 7 odst. 8 nebo § 13\nodst. 2", LAW, "§ 7 odst. 8"),
           ]),
    Record("esb-285-01", "sample_corpus/esbirka/pdf/285-2025.pdf",
           "2. Na konzultanta přibraného pro účely trestního řízení přede dnem nabytí účinnosti tohoto zákona\nse použije § 157 odst. 4 a 5 zákona č. 141/1961 Sb., ve znění účinném přede dnem nabytí účinnosti\ntohoto zákona, a vyhláška č. 508/2020 Sb., o odměně a náhradě hotových výdajů konzultanta\npřibraného pro účely trestního řízení, ve",
           [
               ("§ 157 odst. 4 a 5 zákona č. 141/1961 Sb.", LAW, "141/1961 Sb. § 157 odst. 4"),
               ("vyhláška č. 508/2020 Sb.", LAW, "508/2020 Sb."),
           ]),
    Record("esb-285-02", "sample_corpus/esbirka/pdf/285-2025.pdf",
           "2 znalců oprávněných k výkonu znalecké činnosti podle § 5 nebo 46 zákona č. 254/2019 Sb., ve\nznění účinném ode dne nabytí účinnosti tohoto zákona;",
           [
               ("§ 5 nebo 46 zákona č. 254/2019 Sb.", LAW, "254/2019 Sb. § 5"),
           ]),
    Record("esb-316-01", "sample_corpus/esbirka/pdf/316-2025.pdf",
           "2. Ustanovení § 1b a 1c zákona č. 563/1991 Sb., ve znění účinném ode dne nabytí účinnosti\nčl. I bodů 2 až 11, se použijí pro posouzení splnění hraničních hodnot k rozvahovému dni\núčetního období započatého od 1. ledna 2024 a skončeného od 31. prosince 2024.",
           [
               ("§ 1b a 1c zákona č. 563/1991 Sb.", LAW, "563/1991 Sb. § 1b"),
               ("čl. I bodů 2 až 11", LAW, "čl. I bod 2"),
           ]),
    Record("esb-316-02", "sample_corpus/esbirka/pdf/316-2025.pdf",
           "56. V § 32n se na konci textu odstavce 3 doplňují slova „vydaného podle čl. 48c odst. 4 směrnice\nEvropského parlamentu a Rady 2013/34/EU, v platném znění49)“.",
           [
               ("§ 32n", LAW, "§ 32n"),
               ("čl. 48c odst. 4 směrnice\nEvropského parlamentu a Rady 2013/34/EU", LAW, "směrnice 2013/34/EU čl. 48c odst. 4"),
           ]),
    Record("esb-323-01", "sample_corpus/esbirka/pdf/323-2025.pdf",
           "(4) Pro místní příslušnost územní správy sociálního zabezpečení k rozhodování o přestupcích se\npoužije § 83 odst. 4 písm. a) zákona o nemocenském pojištění obdobně.",
           [
               ("§ 83 odst. 4 písm. a) zákona o nemocenském pojištění", LAW, "187/2006 Sb. § 83 odst. 4 písm. a)"),
           ]),
    Record("esb-324-01", "sample_corpus/esbirka/pdf/324-2025.pdf",
           "Oprávnění orgánů sociálního zabezpečení a jejich zaměstnanců podle § 11 odst. 1,\n§ 12 písm. a) a d), § 13 a 15 zákona o organizaci a provádění sociálního zabezpečení ve věcech\nsociálního zabezpečení platí přiměřeně pro kontrolu podle věty první ve věcech povinného\npříspěvku.",
           [
               ("§ 11 odst. 1,\n§ 12 písm. a) a d), § 13 a 15 zákona o organizaci a provádění sociálního zabezpečení", LAW, "582/1991 Sb. § 11 odst. 1"),
           ]),
    Record("esb-324-02", "sample_corpus/esbirka/pdf/324-2025.pdf",
           "V § 5a zákona č. 589/1992 Sb., o pojistném na sociální zabezpečení a příspěvku na státní politiku\nzaměstnanosti, ve znění zákona č. 189/2006 Sb., zákona č. 455/2022 Sb. a zákona č. 417/2024 Sb., se\ndoplňuje odstavec 3, který zní:",
           [
               ("§ 5a zákona č. 589/1992 Sb.", LAW, "589/1992 Sb. § 5a"),
               ("zákona č. 189/2006 Sb.", LAW, "189/2006 Sb."),
               ("zákona č. 455/2022 Sb.", LAW, "455/2022 Sb."),
               ("zákona č. 417/2024 Sb.", LAW, "417/2024 Sb."),
           ]),
    Record("esb-467-01", "sample_corpus/esbirka/pdf/467-2025.pdf",
           "Ministerstvo vnitra stanoví podle § 101 písm. a) zákona č. 133/1985 Sb., o požární\nochraně, ve znění zákona č. 203/1994 Sb., zákona č. 237/2000 Sb., zákona č. 320/\n/2015 Sb., zákona č. 229/2016 Sb., zákona č. 284/2021 Sb. a zákona č. 415/2021 Sb.,\nk provedení § 6c, § 15 odst. 2, § 16 odst. 4, § 24 odst. 2 a § 31a zákona:",
           [
               ("§ 101 písm. a) zákona č. 133/1985 Sb.", LAW, "133/1985 Sb. § 101 písm. a)"),
               ("zákona č. 203/1994 Sb.", LAW, "203/1994 Sb."),
               ("zákona č. 237/2000 Sb.", LAW, "237/2000 Sb."),
               ("zákona č. 320/\n/2015 Sb.", LAW, "320/2015 Sb."),
               ("zákona č. 229/2016 Sb.", LAW, "229/2016 Sb."),
               ("zákona č. 284/2021 Sb.", LAW, "284/2021 Sb."),
               ("zákona č. 415/2021 Sb.", LAW, "415/2021 Sb."),
               ("§ 6c, § 15 odst. 2, § 16 odst. 4, § 24 odst. 2 a § 31a", LAW, "§ 6c"),
           ]),
    Record("esb-467-02", "sample_corpus/esbirka/pdf/467-2025.pdf",
           "32) § 157 odst. 1 písm. a) a b) zákona č. 283/2021 Sb., stavební zákon, ve znění pozdějších předpisů.",
           [
               ("§ 157 odst. 1 písm. a) a b) zákona č. 283/2021 Sb., stavební zákon", LAW, "283/2021 Sb. § 157 odst. 1 písm. a)"),
           ]),
    Record("esb-522-01", "sample_corpus/esbirka/pdf/522-2025.pdf",
           "54) § 19 zákona č. 222/2016 Sb., o Sbírce zákonů a mezinárodních smluv a o tvorbě právních předpisů vyhlašo-\nvaných ve Sbírce zákonů a mezinárodních smluv (zákon o Sbírce zákonů a mezinárodních smluv), ve znění\nzákona č. 277/2019 Sb.“.",
           [
               ("§ 19 zákona č. 222/2016 Sb.", LAW, "222/2016 Sb. § 19"),
               ("zákona č. 277/2019 Sb.", LAW, "277/2019 Sb."),
           ]),
    Record("esb-522-02", "sample_corpus/esbirka/pdf/522-2025.pdf",
           "3. V§122odst. 3 větě první se za slovo „podávat“ vkládá slovo „o",
           [
               ("§122odst. 3 větě první", LAW, "§ 122 odst. 3"),
           ]),
    Record("esb-573-01", "sample_corpus/esbirka/pdf/573-2025.pdf",
           "Ministerstvo práce a sociálních věcí stanoví podle § 189 odst. 1 zákona č. 262/2006\nSb., zákoník práce:",
           [
               ("§ 189 odst. 1 zákona č. 262/2006\nSb., zákoník práce", LAW, "262/2006 Sb. § 189 odst. 1"),
           ]),
    Record("esb-573-03", "sample_corpus/esbirka/pdf/573-2025.pdf",
           "Výše průměrné ceny pohonné hmoty podle § 158 odst. 3 věty třetí zákoníku práce činí",
           [
               ("§ 158 odst. 3 věty třetí zákoníku práce", LAW, "262/2006 Sb. § 158 odst. 3"),
           ]),
    Record("esb-120-01", "sample_corpus/esbirka/pdf/120-2025.pdf",
           "2. V§34bodst. 2sezavětu první vkládá věta „Toto",
           [
               ("§34bodst. 2", LAW, "§ 34b odst. 2"),
           ]),
    Record("esb-89-01", "sample_corpus/esbirka/pdf/89-2024.pdf",
           "3. Zprávu podle § 59a odst. 1 zákona č. 247/1995 Sb., ve znění účinném ode dne nabytí účinnosti\ntohoto zákona",
           [
               ("§ 59a odst. 1 zákona č. 247/1995 Sb.", LAW, "247/1995 Sb. § 59a odst. 1"),
           ]),
    Record("esb-89-02", "sample_corpus/esbirka/pdf/89-2024.pdf",
           "2) Čl. 102 ústavního zákona č. 1/1993 Sb.“.",
           [
               ("Čl. 102 ústavního zákona č. 1/1993 Sb.", LAW, "1/1993 Sb. čl. 102"),
           ]),
    Record("esb-88-01", "sample_corpus/esbirka/pdf/88-2024.pdf",
           "(4) V řízení o poskytnutí příspěvku se nepoužijí ustanovení § 37 odst. 3, § 41, § 45 odst. 2 a 4, § 71\nodst. 3, § 80 odst. 4 písm. b) až d), § 140 odst. 2 a § 146 správního řádu.",
           [
               ("§ 37 odst. 3, § 41, § 45 odst. 2 a 4, § 71\nodst. 3, § 80 odst. 4 písm. b) až d), § 140 odst. 2 a § 146 správního řádu", LAW, "500/2004 Sb. § 37 odst. 3"),
           ]),
    Record("esb-88-02", "sample_corpus/esbirka/pdf/88-2024.pdf",
           "(5) Proti rozhodnutí poskytovatele příspěvku není přípustné odvolání. Obnova řízení ani nové\nrozhodnutí ve věci se nepřipouští. Přezkumné řízení se nepřipouští, s výjimkou postupu podle\n§ 153 odst. 1 písm. a) správního řádu.",
           [
               ("§ 153 odst. 1 písm. a) správního řádu", LAW, "500/2004 Sb. § 153 odst. 1 písm. a)"),
           ]),
    Record("esb-175-01", "sample_corpus/esbirka/pdf/175-2025.pdf",
           "c) omezující zvyšování nájemného podle § 2249 a 2250 občanského zákoníku v prvním",
           [
               ("§ 2249 a 2250 občanského zákoníku", LAW, "89/2012 Sb. § 2249"),
           ]),
    Record("esb-175-02", "sample_corpus/esbirka/pdf/175-2025.pdf",
           "(6) Postup podle odstavců 1až 5 není správním řízením. Ustanovení § 154 až 157 správního řádu se",
           [
               ("§ 154 až 157 správního řádu", LAW, "500/2004 Sb. § 154"),
           ]),
    Record("esb-175-03", "sample_corpus/esbirka/pdf/175-2025.pdf",
           "1) Čl. 7 odst. 2 a čl. 9 nařízení Evropského parlamentu a Rady (EU) č. 492/2011 ze dne 5. dubna 2011 o volném pohybu",
           [
               ("Čl. 7 odst. 2 a čl. 9 nařízení Evropského parlamentu a Rady (EU) č. 492/2011", LAW, "nařízení (EU) 492/2011 čl. 7 odst. 2"),
           ]),
    Record("esb-175-04", "sample_corpus/esbirka/pdf/175-2025.pdf",
           "podle § 50 se použijí ustanovení občanského zákoníku o nájmu bytu.",
           [
               ("§ 50", LAW, "§ 50"),
               ("občanského zákoníku", LAW, "89/2012 Sb."),
           ]),
    Record("esb-87-01", "sample_corpus/esbirka/pdf/87-2024.pdf",
           "Ústavní zákon č. 1/1993 Sb., Ústava České republiky, ve znění ústavního zákona č. 347/1997 Sb.,\nústavního zákona č. 300/2000 Sb., ústavního zákona č. 395/2001 Sb., ústavního zákona č. 448/2001\nSb., ústavního zákona č. 515/2002 Sb., ústavního zákona č. 319/2009 Sb., ústavního zákona č. 71/2012\nSb. a ústavního zákona č. 98/2013 Sb., se mění takto:",
           [
               ("Ústavní zákon č. 1/1993 Sb., Ústava České republiky", LAW, "1/1993 Sb."),
               ("ústavního zákona č. 347/1997 Sb.", LAW, "347/1997 Sb."),
               ("ústavního zákona č. 300/2000 Sb.", LAW, "300/2000 Sb."),
               ("ústavního zákona č. 395/2001 Sb.", LAW, "395/2001 Sb."),
               ("ústavního zákona č. 448/2001\nSb.", LAW, "448/2001 Sb."),
               ("ústavního zákona č. 515/2002 Sb.", LAW, "515/2002 Sb."),
               ("ústavního zákona č. 319/2009 Sb.", LAW, "319/2009 Sb."),
               ("ústavního zákona č. 71/2012\nSb.", LAW, "71/2012 Sb."),
               ("ústavního zákona č. 98/2013 Sb.", LAW, "98/2013 Sb."),
           ]),
    Record("esb-90-01", "sample_corpus/esbirka/pdf/90-2024.pdf",
           "(1) Žádost obsahuje kromě obecných náležitostí podle správního řádu v případě výjimky kategorie",
           [
               ("správního řádu", LAW, "500/2004 Sb."),
           ]),
    Record("esb-90-02", "sample_corpus/esbirka/pdf/90-2024.pdf",
           "d) vyjádření krajské hygienické stanice k provoznímu řádu střelnice z hlediska ochrany",
           [
           ]),
    Record("esb-522-03", "sample_corpus/esbirka/pdf/522-2025.pdf",
           "právní úpravy nejsou věci, jejichž úpravu zákonným opatřením Senátu Ústava vylučuje,",
           [
               ("Ústava", LAW, "1/1993 Sb."),
           ]),
    Record("esb-88-03", "sample_corpus/esbirka/pdf/88-2024.pdf",
           "Směrnice Rady 2013/1/EU ze dne 20. prosince 2012, kterou se mění směrnice 93/109/ES, pokud jde o některá pravidla",
           [
               ("Směrnice Rady 2013/1/EU", LAW, "směrnice 2013/1/EU"),
               ("směrnice 93/109/ES", LAW, "směrnice 93/109/ES"),
           ]),
    Record("esb-316-03", "sample_corpus/esbirka/pdf/316-2025.pdf",
           "1. Na konci poznámky pod čarou č. 1 se na samostatný řádek doplňuje věta „Směrnice Komise\nv přenesené pravomoci (EU) 2023/2775 ze dne 17. října 2023, kterou se mění směrnice Evrop-\nského parlamentu a Rady 2013/34/EU, pokud jde o úpravy kritérií velikosti pro mikropodniky\na malé, střední a velké podniky nebo skupiny.“.",
           [
               ("Směrnice Komise\nv přenesené pravomoci (EU) 2023/2775", LAW, "směrnice (EU) 2023/2775"),
               ("směrnice Evrop-\nského parlamentu a Rady 2013/34/EU", LAW, "směrnice 2013/34/EU"),
           ]),
    Record("mun-bib-01", "sample_corpus/municipal/blesno/text/informacni-noviny__bib-2020-02.pdf",
           "103/05/2020 schvaluje slevu na nájemném 113/06/2020 schvaluje rozpočtové opatření\nv klubovně na hřišti. Nájemné za březen 2020 bude č.1/2020.\n400 Kč, duben 2020 0 Kč a květen 2020 400 Kč. 114/06/2020 schvaluje pachtovní smlouvu na\n104/05/2020 schvaluje podporu MAS Nad Orlicí, o. pozemek parcely č. 825/3.\np. s. na rok 2020 ve výši 5 Kč na obyvatele, tj. 2.125 115/06/2020 schvaluje souhlasné prohlášení o\nKč narovnání vlastnických vztahů s ÚZSVM k pozemku\n105/05/2020 deleguje starostu Mgr. Miloše Buroně parcely č. 913/11 v k. ú. Blešno.",
           [
           ]),
    Record("mun-bib-02", "sample_corpus/municipal/blesno/text/informacni-noviny__bib-2020-02.pdf",
           "nutné objednat osobně na obecním úřadu, telefonicky na čísle 495 428 270, nebo na e-mailu\nblesno@blesno.cz nejdéle v pátek do 12:00.",
           [
           ]),
    Record("mun-kr-01", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "(zpracován dle zákona č. 274/2001 Sb., o vodovodech a kanalizacích pro veřejnou potřebu\nv platném znění a ustanovení § 24 a 25 vyhlášky č.428/2001 Sb. v platném znění\n(vyhl.č.48/2014 Sb.)",
           [
               ("zákona č. 274/2001 Sb.", LAW, "274/2001 Sb."),
               ("§ 24 a 25 vyhlášky č.428/2001 Sb.", LAW, "428/2001 Sb. § 24"),
               ("vyhl.č.48/2014 Sb.", LAW, "48/2014 Sb."),
           ]),
    Record("mun-kr-03", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "Tento kanalizační řád vychází ze zákona č. 274/2001 Sb., o vodovodech a kanalizacích\npro veřejnou potřebu, prováděcí vyhlášky Ministerstva zemědělství č.428/2001 Sb. v platném\nznění (vyhl. č. 48/2014 Sb.), zákona č. 254/2001 Sb., vodní zákon",
           [
               ("zákona č. 274/2001 Sb.", LAW, "274/2001 Sb."),
               ("vyhlášky Ministerstva zemědělství č.428/2001 Sb.", LAW, "428/2001 Sb."),
               ("vyhl. č. 48/2014 Sb.", LAW, "48/2014 Sb."),
               ("zákona č. 254/2001 Sb., vodní zákon", LAW, "254/2001 Sb."),
           ]),
    Record("mun-kr-04", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "b) vypouštějí odpadní vody s obsahem zvlášť nebezpečných látek do kanalizace – §16\nzákona č.254/2001 Sb..",
           [
               ("§16\nzákona č.254/2001 Sb.", LAW, "254/2001 Sb. § 16"),
           ]),
    Record("mun-kr-05", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "Do kanalizace nesmí podle zákona o vodách č. 254/2002 Sb. vnikat",
           [
               ("zákona o vodách č. 254/2002 Sb.", LAW, "254/2002 Sb."),
           ]),
    Record("mun-kr-06", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "(atomový zákon č.18/97 Sb., prováděcí vyhláška č. 184/97 Sb.",
           [
               ("zákon č.18/97 Sb.", LAW, "18/1997 Sb."),
               ("vyhláška č. 184/97 Sb.", LAW, "184/1997 Sb."),
           ]),
    Record("mun-kr-07", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "obchodním zákoníkem č. 513/1991 Sb. a příslušnými vodoprávními předpisy.",
           [
               ("obchodním zákoníkem č. 513/1991 Sb.", LAW, "513/1991 Sb."),
           ]),
    Record("mun-kr-08", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "řádů - částka16/1975 Sb. (Směrnice uveřejněná ve věstníku MLVH ČSR, částka 8,",
           [
           ]),
    Record("mun-kr-09", "sample_corpus/municipal/blesno/text/kanalizace__kanalizacni-rad.pdf",
           "1. Zákon č. 254/2001 Sb., o vodách a o změně některých zákonů (vodní zákon)",
           [
               ("Zákon č. 254/2001 Sb.", LAW, "254/2001 Sb."),
           ]),
    Record("mun-pov-01", "sample_corpus/municipal/blesno/text/kanalizace__vseobecne-podminky-o-odvadeni-odpadnich-vod.pdf",
           "může být dodavatelem pokutováno dle čl.VIII. smlouvy. Není dovoleno vypouštět do kanalizace závadné látky (§ 39 zákona č. 254/2001 Sb., o vodách,",
           [
               ("§ 39 zákona č. 254/2001 Sb.", LAW, "254/2001 Sb. § 39"),
           ]),
    Record("mun-pov-02", "sample_corpus/municipal/blesno/text/kanalizace__vseobecne-podminky-o-odvadeni-odpadnich-vod.pdf",
           "9. Dodavatel je povinen informovat odběratele o skutečnostech uvedených v § 36 odst. 3 zákona č. 274/2001 Sb (zejména",
           [
               ("§ 36 odst. 3 zákona č. 274/2001 Sb", LAW, "274/2001 Sb. § 36 odst. 3"),
           ]),
    Record("mun-vr-01", "sample_corpus/municipal/blesno/text/vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v-obci-blesno__blesno-vo-efekt2-2017-zadavaci-dokumentace.pdf",
           "Základní způsobilost dle § 74 odst. 1 písm. a) až e) zákona č. 134/2016 Sb., o zadávání veřejných zakázek, v platném znění,",
           [
               ("§ 74 odst. 1 písm. a) až e) zákona č. 134/2016 Sb.", LAW, "134/2016 Sb. § 74 odst. 1 písm. a)"),
           ]),
    Record("mun-vr-02", "sample_corpus/municipal/blesno/text/vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v-obci-blesno__blesno-vo-efekt2-2017-zadavaci-dokumentace.pdf",
           "e) který není v likvidaci (§ 187 občanského zákoníku), proti němuž bylo vydáno rozhodnutí o úpadku (§ 136 zákona č.\n182/2006 Sb., o úpadku a způsobech jeho řešení (insolvenční zákon)",
           [
               ("§ 187 občanského zákoníku", LAW, "89/2012 Sb. § 187"),
               ("§ 136 zákona č.\n182/2006 Sb.", LAW, "182/2006 Sb. § 136"),
           ]),
    Record("mun-vr-03", "sample_corpus/municipal/blesno/text/vr-opatreni-ke-snizeni-energeticke-narocnosti-verejneho-osvetleni-v-obci-blesno__blesno-vo-efekt2-2017-zadavaci-dokumentace.pdf",
           "- identifikace skutečných majitelů dle §4 odst. 4 zákona č.253/2008Sb.",
           [
               ("§4 odst. 4 zákona č.253/2008Sb.", LAW, "253/2008 Sb. § 4 odst. 4"),
           ]),
    Record("mun-volby-01", "sample_corpus/municipal/blesno/text/volby__stanoveni-miminalniho-poctu-clenu-okrskove-volebni-komise.pdf",
           "Podle ustanovení § 15 odst. 1 písm. c) zákona č. 130/2000 Sb., o volbách do zastupitelstev krajů a o\nzměně některých zákonů, ve znění pozdějších předpisů",
           [
               ("§ 15 odst. 1 písm. c) zákona č. 130/2000 Sb.", LAW, "130/2000 Sb. § 15 odst. 1 písm. c)"),
           ]),
    Record("mun-gdpr-01", "sample_corpus/municipal/blesno/text/obecni-knihovna__smernice-pro-nakladani-s-osobnimi-udaji.pdf",
           "5 Právním titulem je některé ustanovení čl. 6 odst. 1 písm. a) až f), čl. 9/2 písm. a) až j) , čl. 10 Obecného nařízení",
           [
               ("čl. 6 odst. 1 písm. a) až f), čl. 9/2 písm. a) až j) , čl. 10 Obecného nařízení", LAW, "nařízení (EU) 2016/679 čl. 6 odst. 1 písm. a)"),
           ]),
    Record("mun-gdpr-02", "sample_corpus/municipal/blesno/text/obecni-knihovna__smernice-pro-nakladani-s-osobnimi-udaji.pdf",
           "požadavku ihned, jakmile je to možné, nejdéle do 30 dnů; čl. 6.2.5. Směrnice se použije obdobně.",
           [
           ]),
    Record("mun-gdpr-03", "sample_corpus/municipal/blesno/text/obecni-knihovna__smernice-pro-nakladani-s-osobnimi-udaji.pdf",
           "údajů a plnění povinností podle Obecného nařízení EU č. 2016/679 o ochraně fyzických osob v",
           [
               ("Obecného nařízení EU č. 2016/679", LAW, "nařízení (EU) 2016/679"),
           ]),
    Record("mun-gdpr-04", "sample_corpus/municipal/blesno/text/obecni-knihovna__smernice-pro-nakladani-s-osobnimi-udaji.pdf",
           "přístup k informacím (zákon č. 106/1999 Sb.), neuplatní se správní řád.",
           [
               ("zákon č. 106/1999 Sb.", LAW, "106/1999 Sb."),
               ("správní řád", LAW, "500/2004 Sb."),
           ]),
    Record("ns-20nd234-01", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Nd 234/2026",
           "20 Nd 234/2026-34 USNESENÍ Nejvyšší soud rozhodl v senátě složeném z předsedkyně JUDr. Miroslavy Jirmanové, Ph.D., a soudců JUDr. Zbyňka Poledny a JUDr. Aleše Zezuly ve věci oprávněné Vodafone Czech Republic a. s., se sídlem v Praze 5, náměstí Junkových 2808/2, identifikační číslo osoby 25788001, zastoupené Mgr. Markem Lošanem, advokátem se sídlem v Praze 1, Na Florenci 2116/15, proti povinnému R. R. , o pověření a nařízení exekuce pro 3767,98 Kč s příslušenstvím a náklady nalézacího řízení 1410 Kč, vedené u Obvodního soudu pro Prahu 8 pod sp. zn. 15 EXE 746/2026, o určení místní příslušnosti, takto:",
           [
               ("20 Nd 234/2026-34", DEC, "20 Nd 234/2026"),
               ("15 EXE 746/2026", DEC, "15 EXE 746/2026"),
           ]),
    Record("ns-20nd234-02", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Nd 234/2026",
           "1. Exekučním návrhem ze dne 29. 1. 2026 se oprávněná domáhá vymožení své pohledávky podle rozhodnutí č. j. ČTÚ-31 966/2025-631/SzS, vydaného Českým telekomunikačním úřadem, odborem pro oblast Praha, dne 10. 11. 2025, pravomocným dne 26. 11. 2025, pověřením soudní exekutorky Mgr. Zuzany Gosamové, Exekutorský úřad Praha 6, vedením exekuce.",
           [
           ]),
    Record("ns-20nd234-04", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Nd 234/2026",
           "3. Podle § 45 odst. 2 zákona č. 120/2001 Sb., o soudních exekutorech a exekuční činnosti (exekuční řád) a o změně dalších zákonů, je místně příslušným exekučním soudem soud, v jehož obvodu má povinný (fyzická osoba) místo svého trvalého pobytu,",
           [
               ("§ 45 odst. 2 zákona č. 120/2001 Sb.", LAW, "120/2001 Sb. § 45 odst. 2"),
           ]),
    Record("ns-20nd234-05", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Nd 234/2026",
           "(viz usnesení Nejvyššího soudu ze dne 12. 9. 2012, sp. zn. 31 Nd 200/2012, uveřejněné pod č. 4/2013 Sbírky soudních rozhodnutí a stanovisek).",
           [
               ("31 Nd 200/2012", DEC, "31 Nd 200/2012"),
           ]),
    Record("ns-20nd234-06", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Nd 234/2026",
           "5. Podle § 105 odst. 2 zákona č. 99/1963 Sb., občanský soudní řád, ve znění pozdějších předpisů, dále též jen „o. s. ř.“, vysloví-li soud, že není příslušný, postoupí věc po právní moci tohoto usnesení příslušnému soudu nebo ji za podmínek § 11 odst. 3 předloží Nejvyššímu soudu.",
           [
               ("§ 105 odst. 2 zákona č. 99/1963 Sb., občanský soudní řád", LAW, "99/1963 Sb. § 105 odst. 2"),
               ("§ 11 odst. 3", LAW, "§ 11 odst. 3"),
           ]),
    Record("ns-20nd234-07", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Nd 234/2026",
           "7. Nejvyšší soud v usnesení ze dne 12. 11. 2014, sp. zn. 31 Nd 316/2013, uveřejněném pod číslem 11/2015 Sbírky soudních rozhodnutí a stanovisek, uzavřel, že je-li žádán o určení místně příslušného soudu podle ustanovení § 11 odst. 3 o. s. ř., určí místně příslušný soud, aniž zkoumá (aniž je oprávněn zkoumat), zda je dána pravomoc českých soudů k projednání a rozhodnutí věci.",
           [
               ("31 Nd 316/2013", DEC, "31 Nd 316/2013"),
               ("§ 11 odst. 3 o. s. ř.", LAW, "99/1963 Sb. § 11 odst. 3"),
           ]),
    Record("ns-29icdo177-01", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "MSPH 88 INS 6424/2021 206 ICm 1324/2022 29 ICdo 177/2024-70 ČESKÁ REPUBLIKA ROZSUDEK",
           [
               ("MSPH 88 INS 6424/2021", DEC, "MSPH 88 INS 6424/2021"),
               ("206 ICm 1324/2022", DEC, "206 ICm 1324/2022"),
               ("29 ICdo 177/2024-70", DEC, "29 ICdo 177/2024"),
           ]),
    Record("ns-29icdo177-02", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "o dovolání žalovaného proti rozsudku Vrchního soudu v Praze ze dne 23. května 2024, č. j. 206 ICm 1324/2022, 101 VSPH 73/2024-43 (MSPH 88 INS 6424/2021), takto:",
           [
               ("206 ICm 1324/2022", DEC, "206 ICm 1324/2022"),
               ("101 VSPH 73/2024-43", DEC, "101 VSPH 73/2024"),
               ("MSPH 88 INS 6424/2021", DEC, "MSPH 88 INS 6424/2021"),
           ]),
    Record("ns-29icdo177-03", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "3. Odvolací soud – odkazuje na ustanovení § 7, § 235 odst. 2, § 237 odst. 1, § 239 odst. 1 a 3 a § 241 zákona č. 182/2006 Sb., o úpadku a způsobech jeho řešení (insolvenčního zákona), ustanovení § 22 zákona č. 89/2012 Sb., občanského zákoníku, ustanovení § 8 zákona č. 300/2008 Sb., o elektronických úkonech a autorizované konverzi dokumentů, a ustanovení § 57, § 95 odst. 1, § 114b, § 153a a § 205b zákona č. 99/1963 Sb., občanského soudního řádu (dále též jen „o. s. ř.“), a na (označenou) judikaturu Nejvyššího soudu",
           [
               ("§ 7, § 235 odst. 2, § 237 odst. 1, § 239 odst. 1 a 3 a § 241 zákona č. 182/2006 Sb.", LAW, "182/2006 Sb. § 7"),
               ("§ 22 zákona č. 89/2012 Sb., občanského zákoníku", LAW, "89/2012 Sb. § 22"),
               ("§ 8 zákona č. 300/2008 Sb.", LAW, "300/2008 Sb. § 8"),
               ("§ 57, § 95 odst. 1, § 114b, § 153a a § 205b zákona č. 99/1963 Sb., občanského soudního řádu", LAW, "99/1963 Sb. § 57"),
           ]),
    Record("ns-29icdo177-04", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "11. Pro právní posouzení jsou podstatná následující ustanovení občanského soudního řádu, insolvenčního zákona, zákona č. 6/2002 Sb., o soudech, soudcích, přísedících a státní správě soudů a o změně některých zákonů (zákona o soudech a soudcích), a zákona č. 121/2008 Sb., o vyšších soudních úřednících a vyšších úřednících státního zastupitelství a o změně souvisejících zákonů.",
           [
               ("občanského soudního řádu", LAW, "99/1963 Sb."),
               ("insolvenčního zákona", LAW, "182/2006 Sb."),
               ("zákona č. 6/2002 Sb.", LAW, "6/2002 Sb."),
               ("zákona č. 121/2008 Sb.", LAW, "121/2008 Sb."),
           ]),
    Record("ns-29icdo177-05", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "§ 95 (občanského soudního řádu) (1) Žalobce (navrhovatel) může za řízení se souhlasem soudu měnit návrh na zahájení řízení.",
           [
               ("§ 95 (občanského soudního řádu)", LAW, "99/1963 Sb. § 95"),
           ]),
    Record("ns-29icdo177-06", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "(§ 159 odst. 1 písm. d/, § 235 odst. 2 insolvenčního zákona) nevylučuje",
           [
               ("§ 159 odst. 1 písm. d/, § 235 odst. 2 insolvenčního zákona", LAW, "182/2006 Sb. § 159 odst. 1 písm. d)"),
           ]),
    Record("ns-29icdo177-07", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "(§ 36a odst. 4 zákona o soudech a soudcích)",
           [
               ("§ 36a odst. 4 zákona o soudech a soudcích", LAW, "6/2002 Sb. § 36a odst. 4"),
           ]),
    Record("ns-29icdo177-08", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "rozsudku Nejvyššího soudu ze dne 29. července 2019, sen. zn. 29 ICdo 108/2017, uveřejněného pod číslem 31/2020 Sb. rozh. obč.",
           [
               ("29 ICdo 108/2017", DEC, "29 ICdo 108/2017"),
           ]),
    Record("ns-33cdo2717-01", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Cdo 2717/2024",
           "jde o nárok z neúměrného zkrácení podle § 1793 zákona č. 89/2012 Sb., občanského zákoníku (dál jen „o. z.“), o němž lze uzavřít smír",
           [
               ("§ 1793 zákona č. 89/2012 Sb., občanského zákoníku", LAW, "89/2012 Sb. § 1793"),
           ]),
    Record("ns-33cdo2717-02", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Cdo 2717/2024",
           "v ústavní rovině srovnej bod 24. nálezu Ústavního soudu ze dne 12. 1. 2021, sp. zn. III. ÚS 3207/20).",
           [
               ("III. ÚS 3207/20", DEC, "III. ÚS 3207/20"),
           ]),
    Record("ns-3tdo289-01", "sample_corpus/courts/ns_decisions_sample.jsonl#3 Tdo 289/2026",
           "3. Proti rozsudku soudu prvního stupně podali odvolání obviněný a státní zástupkyně. O nich pak rozhodl Vrchní soud v Praze tak, že usnesením ze dne 2. 12. 2025, č. j. 7 To 113/2025-495, podle § 256 tr. ř. obě odvolání zamítl. II. Dovolání a vyjádření k němu 4. Proti usnesení Vrchního soudu v Praze ze dne 2. 12. 2025, sp. zn. 7 To 113/2025, podal obviněný prostřednictvím svého obhájce dovolání, které opřel o dovolací důvody obsažené v § 265b odst. 1 písm. g) a h) tr. ř. Napadl jím zamítavý výrok usnesení odvolacího soudu.",
           [
               ("7 To 113/2025-495", DEC, "7 To 113/2025"),
               ("§ 256 tr. ř.", LAW, "141/1961 Sb. § 256"),
               ("7 To 113/2025", DEC, "7 To 113/2025"),
               ("§ 265b odst. 1 písm. g) a h) tr. ř.", LAW, "141/1961 Sb. § 265b odst. 1 písm. g)"),
           ]),
    Record("ns-3tdo289-02", "sample_corpus/courts/ns_decisions_sample.jsonl#3 Tdo 289/2026",
           "14. Shledal přitom, že dovolání obviněného je přípustné podle § 265a odst. 1, odst. 2 písm. h) tr. ř., bylo podáno osobou oprávněnou prostřednictvím obhájce [§ 265d odst. 1 písm. c), odst. 2 tr. ř.], a na místě, kde lze podání učinit (§ 265e odst. 1 tr. ř.), ve dvouměsíční lhůtě podle § 265e odst. 1 a 2 tr. ř. Dovolání splnilo i obsahové náležitosti dovolání uvedené v § 265f tr. ř.",
           [
               ("§ 265a odst. 1, odst. 2 písm. h) tr. ř.", LAW, "141/1961 Sb. § 265a odst. 1"),
               ("§ 265d odst. 1 písm. c), odst. 2 tr. ř.", LAW, "141/1961 Sb. § 265d odst. 1 písm. c)"),
               ("§ 265e odst. 1 tr. ř.", LAW, "141/1961 Sb. § 265e odst. 1"),
               ("§ 265e odst. 1 a 2 tr. ř.", LAW, "141/1961 Sb. § 265e odst. 1"),
               ("§ 265f tr. ř.", LAW, "141/1961 Sb. § 265f"),
           ]),
    Record("ns-3tdo289-03", "sample_corpus/courts/ns_decisions_sample.jsonl#3 Tdo 289/2026",
           "Odůvodnění rozhodnutí soudů obou stupňů proto odpovídají požadavkům § 125 odst. 1 tr. ř., resp. § 134 odst. 2 tr. ř.",
           [
               ("§ 125 odst. 1 tr. ř.", LAW, "141/1961 Sb. § 125 odst. 1"),
               ("§ 134 odst. 2 tr. ř.", LAW, "141/1961 Sb. § 134 odst. 2"),
           ]),
    Record("ns-22cdo1021-01", "sample_corpus/courts/ns_decisions_sample.jsonl#22 Cdo 1021/2026",
           "Žalobkyně nebyla podle § 118a o. s. ř. poučena o nutnosti doplnění či upřesnění obsahu žaloby a změny žalobního petitu tak, aby vyhovoval požadavkům § 1042 o. z.",
           [
               ("§ 118a o. s. ř.", LAW, "99/1963 Sb. § 118a"),
               ("§ 1042 o. z.", LAW, "89/2012 Sb. § 1042"),
           ]),
    Record("ns-22cdo1021-02", "sample_corpus/courts/ns_decisions_sample.jsonl#22 Cdo 1021/2026",
           "V tomto směru odkázala na rozsudky Nejvyššího soudu ze dne 28. 3. 2006, sp. zn. 28 Cdo 2838/2005, a ze dne 24. 6. 2014, sp. zn. 32 Cdo 1519/2012, a dále na nálezy Ústavního soudu ze dne 29. 3. 2016, sp. zn. IV. ÚS 3085/15, a ze dne 2. 9. 2010, sp. zn. II. ÚS 1617/10",
           [
               ("28 Cdo 2838/2005", DEC, "28 Cdo 2838/2005"),
               ("32 Cdo 1519/2012", DEC, "32 Cdo 1519/2012"),
               ("IV. ÚS 3085/15", DEC, "IV. ÚS 3085/15"),
               ("II. ÚS 1617/10", DEC, "II. ÚS 1617/10"),
           ]),
    Record("ns-22cdo1021-03", "sample_corpus/courts/ns_decisions_sample.jsonl#22 Cdo 1021/2026",
           "9. Nejvyšší soud jako soud dovolací (§ 10a o. s. ř.) po zjištění, že dovolání bylo podáno proti pravomocnému rozhodnutí odvolacího soudu, u něhož to zákon připouští (§ 236 odst. 1 o. s. ř.), oprávněnou osobou (účastníkem řízení) v zákonné lhůtě (§ 240 odst. 1 věta první o. s. ř.) a že je splněna i podmínka povinného zastoupení dovolatelky advokátem (§ 241 odst. 1 o. s. ř.), zabýval se tím, zda je dovolání žalobkyně přípustné (§ 237 o. s. ř.).",
           [
               ("§ 10a o. s. ř.", LAW, "99/1963 Sb. § 10a"),
               ("§ 236 odst. 1 o. s. ř.", LAW, "99/1963 Sb. § 236 odst. 1"),
               ("§ 240 odst. 1 věta první o. s. ř.", LAW, "99/1963 Sb. § 240 odst. 1"),
               ("§ 241 odst. 1 o. s. ř.", LAW, "99/1963 Sb. § 241 odst. 1"),
               ("§ 237 o. s. ř.", LAW, "99/1963 Sb. § 237"),
           ]),
    Record("ns-22cdo1021-04", "sample_corpus/courts/ns_decisions_sample.jsonl#22 Cdo 1021/2026",
           "Vyložil, že úprava sousedských práv v občanském zákoníku zakotvila odlišení imisí přímých (§ 1013 odst. 1 věta druhá o. z.) a nepřímých (§ 1013 odst. 1 věta první o. z.).",
           [
               ("občanském zákoníku", LAW, "89/2012 Sb."),
               ("§ 1013 odst. 1 věta druhá o. z.", LAW, "89/2012 Sb. § 1013 odst. 1"),
               ("§ 1013 odst. 1 věta první o. z.", LAW, "89/2012 Sb. § 1013 odst. 1"),
           ]),
    Record("ns-22cdo1021-05", "sample_corpus/courts/ns_decisions_sample.jsonl#22 Cdo 1021/2026",
           "(srovnej rozsudky Nejvyššího soudu ze dne 10. 7. 2012, sp. zn. 22 Cdo 296/2011, ze dne 26. 11. 2014, sp. zn. 22 Cdo 1312/2013, nebo ze dne 29. 4. 2015, sp. zn. 22 Cdo 3940/2014).",
           [
               ("22 Cdo 296/2011", DEC, "22 Cdo 296/2011"),
               ("22 Cdo 1312/2013", DEC, "22 Cdo 1312/2013"),
               ("22 Cdo 3940/2014", DEC, "22 Cdo 3940/2014"),
           ]),
    Record("ns-20ncu48-01", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Ncu 48/2026",
           "2/ Za situace, kdy vztahy mezi manžely byly trvale rozvráceny natolik, že nelze očekávat jejich obnovení, je ve výroku uvedené rozhodnutí cizího orgánu v souladu s ustanovením § 755 zákona č. 89/2012 Sb., občanský zákoník, ve znění pozdějších předpisů. Rovněž skutkový základ byl cizím orgánem zjištěn způsobem zásadně vyhovujícím příslušným ustanovením právního řádu České republiky (§ 51 odst. 3 zákona č. 91/2012 Sb., o mezinárodním právu soukromém, ve znění pozdějších předpisů, dále jen „ZMPS“).",
           [
               ("§ 755 zákona č. 89/2012 Sb., občanský zákoník", LAW, "89/2012 Sb. § 755"),
               ("§ 51 odst. 3 zákona č. 91/2012 Sb.", LAW, "91/2012 Sb. § 51 odst. 3"),
           ]),
    Record("ns-20ncu48-02", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Ncu 48/2026",
           "4/ Ve smyslu ustanovení § 51 odst. 1, 2 ZMPS byl návrh na uznání cizího rozhodnutí podán účastníkem řízení a bylo též zjištěno, že navrhovatelka byla v době vydání rozhodnutí o rozvodu občankou České republiky. V dané věci nejde ani o případ, jaký má na zřeteli ustanovení § 52 ZMPS.",
           [
               ("§ 51 odst. 1, 2 ZMPS", LAW, "91/2012 Sb. § 51 odst. 1"),
               ("§ 52 ZMPS", LAW, "91/2012 Sb. § 52"),
           ]),
    Record("ns-20ncu48-03", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Ncu 48/2026",
           "20 Ncu 48/2026-26 ČESKÁ REPUBLIKA ROZSUDEK JMÉNEM REPUBLIKY Nejvyšší soud České republiky rozhodl v senátě složeném z předsedy senátu JUDr. Aleše Zezuly a soudců JUDr. Miroslavy Jirmanové, Ph.D., a JUDr. Zbyňka Poledny o návrhu na uznání cizího rozhodnutí podaném navrhovatelkou M. A. B. , zastoupenou JUDr. Ludmilou Winkel, LL.M., advokátkou se sídlem na Praze 2, Uruguayská 416/11, t a k t o: Rozsudek Okresního soudu pro okres Harford ( The Circuit Court for Harford County ), Spojené státy americké, ze dne 29. 4. 2025, sp. zn. C-12-FM-24-001884, jímž bylo rozvedeno manželství B. D. L. a M. A. B., uzavřené dne 3. 3. 2023 před oddávajícím orgánem Wailea, ostrov Maui, Havaj, Spojené státy americké, zapsané i v knize manželství matričního úřadu Úřadu městské části města Brna, Brno – střed, okres Brno – město, ve svazku ZM/VIII/14, roč. 2025, strana 169, poř. č. 39, se uznává",
           [
               ("20 Ncu 48/2026-26", DEC, "20 Ncu 48/2026"),
           ]),
    Record("ns-20cdo3327-01", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Cdo 3327/2025",
           "vedené u soudního exekutora Mgr. Patrika Steinera, Exekutorský úřad Praha-východ, pod sp. zn. 236 EX 00341/07 (původně pod sp. zn. 081 EX 00341/07), o dovolání povinného proti usnesení Krajského soudu v Českých Budějovicích ze dne 23. června 2025, č. j. 24 Co 883/2025, takto:",
           [
               ("24 Co 883/2025", DEC, "24 Co 883/2025"),
           ]),
    Record("ns-20cdo3327-02", "sample_corpus/courts/ns_decisions_sample.jsonl#20 Cdo 3327/2025",
           "2/ Exekutor v usnesení citoval ustanovení § 55 odst. 7, odst. 8 a odst. 11 zákona č. 120/2001 Sb., o soudních exekutorech a exekuční činnosti (exekuční řád) a o změně dalších zákonů, ve znění pozdějších předpisů (dále „ex. řád“),",
           [
               ("§ 55 odst. 7, odst. 8 a odst. 11 zákona č. 120/2001 Sb.", LAW, "120/2001 Sb. § 55 odst. 7"),
           ]),
    Record("ns-27cdo2965-01", "sample_corpus/courts/ns_decisions_sample.jsonl#27 Cdo 2965/2025",
           "18. Jelikož ostatní v dovolání vymezené otázky nemohou založit přípustnost dovolání navrhovatelky a), neboť na nich napadené rozhodnutí ve vztahu k navrhovatelce a) nezávisí (§ 237 o. s. ř.), a dovolání nesměřuje ani proti žádnému z usnesení vypočtených v § 238a o. s. ř., Nejvyšší soud dovolání navrhovatelky a) podle § 243c odst. 1 a 2 o. s. ř. odmítl.",
           [
               ("§ 237 o. s. ř.", LAW, "99/1963 Sb. § 237"),
               ("§ 238a o. s. ř.", LAW, "99/1963 Sb. § 238a"),
               ("§ 243c odst. 1 a 2 o. s. ř.", LAW, "99/1963 Sb. § 243c odst. 1"),
           ]),
    Record("ns-27cdo2965-02", "sample_corpus/courts/ns_decisions_sample.jsonl#27 Cdo 2965/2025",
           "20. Podle § 663 odst. 1 z. o. k. se každý člen družstva, člen představenstva nebo kontrolní komise nebo likvidátor mohou dovolávat neplatnosti usnesení členské schůze podle ustanovení občanského zákoníku o neplatnosti usnesení členské schůze spolku pro rozpor s právními předpisy nebo stanovami.",
           [
               ("§ 663 odst. 1 z. o. k.", LAW, "90/2012 Sb. § 663 odst. 1"),
               ("občanského zákoníku", LAW, "89/2012 Sb."),
           ]),
    Record("ns-27cdo2965-03", "sample_corpus/courts/ns_decisions_sample.jsonl#27 Cdo 2965/2025",
           "22. Jinak řečeno, navrhovatel, který se u soudu domáhá vyslovení neplatnosti usnesení členské schůze družstva z určitých důvodů, nemůže po uplynutí zákonných prekluzivních lhůt uvedených v § 259 o. z. a v § 663 odst. 1 z. o. k. uplatnit nové (v návrhu na zahájení řízení dosud neuplatněné) důvody neplatnosti usnesení členské schůze.",
           [
               ("§ 259 o. z.", LAW, "89/2012 Sb. § 259"),
               ("§ 663 odst. 1 z. o. k.", LAW, "90/2012 Sb. § 663 odst. 1"),
           ]),
    Record("ns-27cdo2965-04", "sample_corpus/courts/ns_decisions_sample.jsonl#27 Cdo 2965/2025",
           "32. Výrok o náhradě nákladů dovolacího řízení ve vztahu mezi navrhovatelkou a) a družstvem se opírá o § 243c odst. 3 větu první, § 224 odst. 1 a § 146 odst. 3 o. s. ř., neboť dovolání navrhovatelky a) bylo odmítnuto, družstvu však žádné náklady dovolacího řízení nevznikly.",
           [
               ("§ 243c odst. 3 větu první, § 224 odst. 1 a § 146 odst. 3 o. s. ř.", LAW, "99/1963 Sb. § 243c odst. 3"),
           ]),
    Record("ns-27cdo2965-05", "sample_corpus/courts/ns_decisions_sample.jsonl#27 Cdo 2965/2025",
           "31. O návrhu dovolatelů na odklad vykonatelnosti napadeného usnesení odvolacího soudu Nejvyšší soud nerozhodoval. Návrh na odklad vykonatelnosti či právní moci je závislé povahy (srov. nález Ústavního soudu ze dne 23. 8. 2017, sp. zn. III. ÚS 3425/16), což mimo jiné znamená, že rozhodl-li dovolací soud o podaném dovolání, stává se návrh na odklad vykonatelnosti bezpředmětný (obsoletní); obdobně například rozsudek Nejvyššího soudu ze dne 23. 1. 2018, sp. zn. 27 Cdo 2826/2017 (uveřejněný pod číslem 29/2019 Sb. rozh. obč.).",
           [
               ("III. ÚS 3425/16", DEC, "III. ÚS 3425/16"),
               ("27 Cdo 2826/2017", DEC, "27 Cdo 2826/2017"),
           ]),
    Record("ns-33nd232-01", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Nd 232/2026",
           "podle vykonatelného notářského zápisu ze dne 19. 12. 2025, sp. zn. NZ 1602/2025, N 2141/2025, sepsaného",
           [
           ]),
    Record("ns-33nd189-01", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Nd 189/2026",
           "Okresní soud v Chomutově usnesením ze dne 19. 3. 2026, č. j. 26 EXE 5748/2026-26, vyslovil svoji místní nepříslušnost",
           [
               ("26 EXE 5748/2026-26", DEC, "26 EXE 5748/2026"),
           ]),
    Record("cit-supco-01", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "2-680-06_1.txt, II. US 680/06, 2007-04-19,ConCo,30 Cdo 85/2005,rozhodnuti-30_Cdo_85_2005.txt,2005-02-22,SupCo",
           [
               ("II. US 680/06", DEC, "II. ÚS 680/06"),
               ("30 Cdo 85/2005", DEC, "30 Cdo 85/2005"),
           ]),
    Record("cit-supco-02", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "1-878-15_1.txt, I. US 878/15, 2015-09-16,ConCo,29 NSCR 51/2013,rozhodnuti-29_NSCR_51_2013.txt,2013-07-11,SupCo",
           [
               ("I. US 878/15", DEC, "I. ÚS 878/15"),
               ("29 NSCR 51/2013", DEC, "29 NSČR 51/2013"),
           ]),
    Record("cit-supco-03", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "4-761-18_1.txt, IV. US 761/18, 2018-03-20,ConCo,Tpjn 301/2012,rozhodnuti-Tpjn_301_2012.txt,2013-01-30,SupCo",
           [
               ("IV. US 761/18", DEC, "IV. ÚS 761/18"),
               ("Tpjn 301/2012", DEC, "Tpjn 301/2012"),
           ]),
    Record("cit-supco-05", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "1-3308-16_2.txt, I. US 3308/16, 2017-01-19,ConCo,Cdo 915/98,rozhodnuti-25_Cdo_915_98.txt,2000-06-21,SupCo",
           [
               ("I. US 3308/16", DEC, "I. ÚS 3308/16"),
               ("Cdo 915/98", DEC, "Cdo 915/98"),
           ]),
    Record("cit-supco-06", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "3-4483-12_2.txt, III. US 4483/12, 2013-03-06,ConCo,32 Cdo 4176/201,rozhodnuti-32_Cdo_4176_2010.txt,2012-09-26,SupCo",
           [
               ("III. US 4483/12", DEC, "III. ÚS 4483/12"),
               ("32 Cdo 4176/201", DEC, "32 Cdo 4176/201"),
           ]),
    Record("cit-supco-07", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "St-16-02_1.txt, Pl. US-st. 16/02, 2003-01-14,ConCo,25 Cdo 101/2000,rozhodnuti-25_Cdo_101_2000.txt,2000-06-28,SupCo",
           [
               ("Pl. US-st. 16/02", DEC, "Pl. ÚS-st. 16/02"),
               ("25 Cdo 101/2000", DEC, "25 Cdo 101/2000"),
           ]),
    Record("cit-supco-08", "sample_corpus/courts/citations/ConCo-ref-SupCo.csv",
           "1-1760-16_1.txt, I. US 1760/16, 2017-06-20,ConCo,Plsn 1/2015,rozhodnuti-Plsn_1_2015.txt,2017-01-05,SupCo",
           [
               ("I. US 1760/16", DEC, "I. ÚS 1760/16"),
               ("Plsn 1/2015", DEC, "Plsn 1/2015"),
           ]),
    Record("cit-supco-u-01", "sample_corpus/courts/citations/ConCo-ref-SupCo-unlinked.csv",
           "3-298-99.txt, III. US 298/99, 1999-09-23,ConCo,ve veci 26 Cdo 758/99",
           [
               ("III. US 298/99", DEC, "III. ÚS 298/99"),
               ("26 Cdo 758/99", DEC, "26 Cdo 758/99"),
           ]),
    Record("cit-supco-u-02", "sample_corpus/courts/citations/ConCo-ref-SupCo-unlinked.csv",
           "1-1800-16_1.txt, I. US 1800/16, 2017-12-19,ConCo,KSUL 43 INS 8520/2009",
           [
               ("I. US 1800/16", DEC, "I. ÚS 1800/16"),
               ("KSUL 43 INS 8520/2009", DEC, "KSUL 43 INS 8520/2009"),
           ]),
    Record("cit-supco-u-03", "sample_corpus/courts/citations/ConCo-ref-SupCo-unlinked.csv",
           "3-35-2000.txt, III. US 35/2000, 2002-03-20,ConCo,2002-26 Cdo 560/2000",
           [
               ("III. US 35/2000", DEC, "III. ÚS 35/2000"),
               ("26 Cdo 560/2000", DEC, "26 Cdo 560/2000"),
           ]),
    Record("cit-supco-u-04", "sample_corpus/courts/citations/ConCo-ref-SupCo-unlinked.csv",
           "1-50-09_1.txt, I. US 50/09, 2009-02-03,ConCo,31 Cdo / 2",
           [
               ("I. US 50/09", DEC, "I. ÚS 50/09"),
           ]),
    Record("cit-supco-u-05", "sample_corpus/courts/citations/ConCo-ref-SupCo-unlinked.csv",
           "1-15-05.txt, I. US 15/05, 2006-03-08,ConCo,stanovisko Cpjn 81/94",
           [
               ("I. US 15/05", DEC, "I. ÚS 15/05"),
               ("Cpjn 81/94", DEC, "Cpjn 81/94"),
           ]),
    Record("cit-supco-u-06", "sample_corpus/courts/citations/ConCo-ref-SupCo-unlinked.csv",
           "1-1783-08_1.txt, I. US 1783/08, 2008-08-19,ConCo,11Tdo 392/2008",
           [
               ("I. US 1783/08", DEC, "I. ÚS 1783/08"),
               ("11Tdo 392/2008", DEC, "11 Tdo 392/2008"),
           ]),
    Record("cit-nss-01", "sample_corpus/courts/citations/ConCo-ref-SupAdmCo-unlinked.csv",
           "1-1815-18_1.txt,I. US 1815/18,2018-09-04,ConCo,6 As 23/2006-98 nebo 7 As 261/2014-42",
           [
               ("I. US 1815/18", DEC, "I. ÚS 1815/18"),
               ("6 As 23/2006-98", DEC, "6 As 23/2006"),
               ("7 As 261/2014-42", DEC, "7 As 261/2014"),
           ]),
    Record("cit-nss-02", "sample_corpus/courts/citations/ConCo-ref-SupAdmCo-unlinked.csv",
           "1-3857-16_1.txt,I. US 3857/16,2017-06-14,ConCo,c. 861/2001 SJS ci rozsudek NSS 2 Ads 16/2003-56",
           [
               ("I. US 3857/16", DEC, "I. ÚS 3857/16"),
               ("2 Ads 16/2003-56", DEC, "2 Ads 16/2003"),
           ]),
    Record("cit-nss-03", "sample_corpus/courts/citations/ConCo-ref-SupAdmCo-unlinked.csv",
           "3-401-03.txt,III. US 401/03,2004-03-18,ConCo,Nc 2192/2002-99",
           [
               ("III. US 401/03", DEC, "III. ÚS 401/03"),
               ("Nc 2192/2002-99", DEC, "Nc 2192/2002"),
           ]),
    Record("cit-nss-04", "sample_corpus/courts/citations/ConCo-ref-SupAdmCo.csv",
           "Pl-2-09_1.txt,Pl. US 2/09,2009-04-07,ConCo,Konf 21/2007-126,0021_0Konf0700126A_prevedeno.txt,2008-12-31,SupAdmCo",
           [
               ("Pl. US 2/09", DEC, "Pl. ÚS 2/09"),
               ("Konf 21/2007-126", DEC, "Konf 21/2007"),
           ]),
    Record("cit-nss-05", "sample_corpus/courts/citations/ConCo-ref-SupAdmCo.csv",
           "4-678-05.txt,IV. US 678/05,2006-09-13,ConCo,8 Ans 2/2005-63,0002_8Ans_0500063A_prevedeno.txt,2005-07-25,SupAdmCo",
           [
               ("IV. US 678/05", DEC, "IV. ÚS 678/05"),
               ("8 Ans 2/2005-63", DEC, "8 Ans 2/2005"),
           ]),
    Record("cit-us-01", "sample_corpus/courts/citations/ConCo-ref-ConCo-unlinked.csv",
           "3-1776-08_1.txt, III. US 1776/08,2008-08-15,ConCo, Pl. US - st. 21/05",
           [
               ("III. US 1776/08", DEC, "III. ÚS 1776/08"),
               ("Pl. US - st. 21/05", DEC, "Pl. ÚS-st. 21/05"),
           ]),
    Record("cit-us-02", "sample_corpus/courts/citations/ConCo-ref-ConCo-unlinked.csv",
           "1-3040-09_1.txt, I. US 3040/09,2010-01-25,ConCo, II US 361/96",
           [
               ("I. US 3040/09", DEC, "I. ÚS 3040/09"),
               ("II US 361/96", DEC, "II. ÚS 361/96"),
           ]),
    Record("cit-us-03", "sample_corpus/courts/citations/ConCo-ref-ConCo-unlinked.csv",
           "1-510-06_1.txt, I. US 510/06,2007-04-25,ConCo, Pl. US23/06",
           [
               ("I. US 510/06", DEC, "I. ÚS 510/06"),
               ("Pl. US23/06", DEC, "Pl. ÚS 23/06"),
           ]),
    Record("cit-us-05", "sample_corpus/courts/citations/ConCo-ref-ConCo-unlinked.csv",
           "1-97-98.txt, I. US 97/98,1998-11-04,ConCo,1. US 21/94",
           [
               ("I. US 97/98", DEC, "I. ÚS 97/98"),
               ("1. US 21/94", DEC, "I. ÚS 21/94"),
           ]),
    Record("cit-rest-01", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "3-569-15_1.txt,III. US 569/15,2015-09-15,ConCo,stiznost c. 17056/06",
           [
               ("III. US 569/15", DEC, "III. ÚS 569/15"),
           ]),
    Record("cit-rest-02", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "2-1625-13_1.txt,II. US 1625/13,2013-10-24,ConCo,c. j. 12 Co 12/2011-345 a rozsudek Okresniho soudu v Usti nad Labem",
           [
               ("II. US 1625/13", DEC, "II. ÚS 1625/13"),
               ("12 Co 12/2011-345", DEC, "12 Co 12/2011"),
           ]),
    Record("cit-rest-03", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "2-300-06.txt,II. US 300/06,2006-07-26,ConCo,vyhlasen pod c. 278/2004 Sb.",
           [
               ("II. US 300/06", DEC, "II. ÚS 300/06"),
               ("c. 278/2004 Sb.", LAW, "278/2004 Sb."),
           ]),
    Record("cit-rest-04", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "1-331-05_1.txt,I. US 331/05,2007-04-26,ConCo,cj. 15 C 51/2004 - 62",
           [
               ("I. US 331/05", DEC, "I. ÚS 331/05"),
               ("15 C 51/2004 - 62", DEC, "15 C 51/2004"),
           ]),
    Record("cit-rest-05", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "1-332-15_1.txt,I. US 332/15,2015-03-23,ConCo,726/2005 Sb. NSS",
           [
               ("I. US 332/15", DEC, "I. ÚS 332/15"),
           ]),
    Record("cit-rest-06", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "Pl-24-10_1.txt,Pl. US 24/10,2011-03-22,ConCo,C-92/09 a C-93/09",
           [
               ("Pl. US 24/10", DEC, "Pl. ÚS 24/10"),
               ("C-92/09", DEC, "C-92/09"),
               ("C-93/09", DEC, "C-93/09"),
           ]),
    Record("cit-rest-07", "sample_corpus/courts/citations/ConCo-ref-rest.csv",
           "3-727-06_1.txt,III. US 727/06,2007-06-20,ConCo,c.j. 22 Cm 289/200-22",
           [
               ("III. US 727/06", DEC, "III. ÚS 727/06"),
               ("22 Cm 289/200-22", DEC, "22 Cm 289/200"),
           ]),
    Record("nsmeta-01", "sample_corpus/courts/ns_decisions.jsonl",
           "\"case_number\": \"29 Nd 461/2024\", \"ecli\": \"ECLI:CZ:NS:2024:29.ND.461.2024.1\", \"decision_date\": \"2024-12-19\", \"publication_date\": \"2025-01-20\", \"document_type\": \"USNESENÍ\"",
           [
               ("29 Nd 461/2024", DEC, "29 Nd 461/2024"),
               ("ECLI:CZ:NS:2024:29.ND.461.2024.1", DEC, "ECLI:CZ:NS:2024:29.ND.461.2024.1"),
           ]),
    Record("nsmeta-02", "sample_corpus/courts/ns_decisions_sample.jsonl",
           "\"case_number\": \"3 Tdo 289/2026\", \"ecli\": \"ECLI:CZ:NS:2026:3.TDO.289.2026.1\", \"decision_date\": \"2026-04-28\", \"publication_date\": \"2026-06-05\", \"document_type\": \"USNESENÍ\", \"legal_area\": \"criminal\", \"title\": \"3 Tdo 289/2026 Usnesení\"",
           [
               ("3 Tdo 289/2026", DEC, "3 Tdo 289/2026"),
               ("ECLI:CZ:NS:2026:3.TDO.289.2026.1", DEC, "ECLI:CZ:NS:2026:3.TDO.289.2026.1"),
               ("3 Tdo 289/2026", DEC, "3 Tdo 289/2026"),
           ]),
    Record("blind-00", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "Jinak řečeno, vyžaduje-li to povaha věci nebo okolnosti případu, lze o těch nárocích, které jsou samostatně projednatelné, vydat podle § 114b o. s. ř. kvalifikovanou výzvu k vyjádření samostatně.",
           [
               ("§ 114b o. s. ř.", LAW, "99/1963 Sb. § 114b"),
           ]),
    Record("blind-01", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "Vylučovací žaloba není přípustná. § 36a (zákona o soudech a soudcích) (1) Soudci vrchního, krajského nebo okresního soudu může být jmenován asistent soudce.",
           [
               ("§ 36a (zákona o soudech a soudcích)", LAW, "6/2002 Sb. § 36a"),
           ]),
    Record("blind-02", "sample_corpus/courts/ns_decisions_sample.jsonl#29 ICdo 177/2024",
           "Nejvyšší soud proto nerozhodoval o nákladech dovolacího řízení (srov. usnesení Nejvyššího soudu ze dne 23. července 2002, sp. zn. 20 Cdo 970/2001, uveřejněné pod číslem 48/2003 Sb. rozh. obč.). 35.",
           [
               ("20 Cdo 970/2001", DEC, "20 Cdo 970/2001"),
           ]),
    Record("blind-04", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Cdo 2717/2024",
           "Jelikož předpoklady pro vydání rozsudku pro uznání byly v projednávané věci splněny (§ 114b odst. 1, 2 a 5, § 153a odst. 3 zákona č. 99/1963 Sb., občanského soudního řádu – dále jen „o. s. ř.“), odvolací soud rozsudek soudu prvního stupně podle § 219 o. s. ř. jako věcně správný potvrdil.",
           [
               ("§ 114b odst. 1, 2 a 5, § 153a odst. 3 zákona č. 99/1963 Sb., občanského soudního řádu", LAW, "99/1963 Sb. § 114b odst. 1"),
               ("§ 219 o. s. ř.", LAW, "99/1963 Sb. § 219"),
           ]),
    Record("blind-05", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Cdo 2717/2024",
           "Jelikož v případě rozsudku pro uznání rozsudku jsou určující pouze kritéria vymezená v § 153a o. s. ř., není ve věci rozhodující otázku výkladu § 1793 o. z.",
           [
               ("§ 153a o. s. ř.", LAW, "99/1963 Sb. § 153a"),
               ("§ 1793 o. z.", LAW, "89/2012 Sb. § 1793"),
           ]),
    Record("blind-07", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Nd 232/2026",
           "Podle § 52 odst. 1 exekučního řádu nestanoví-li tento zákon jinak, použijí se pro exekuční řízení přiměřeně ustanovení občanského soudního řádu.",
           [
               ("§ 52 odst. 1 exekučního řádu", LAW, "120/2001 Sb. § 52 odst. 1"),
               ("občanského soudního řádu", LAW, "99/1963 Sb."),
           ]),
    Record("blind-08", "sample_corpus/courts/ns_decisions_sample.jsonl#33 Nd 232/2026",
           "Nejvyšší soud v usnesení ze dne 12. 9. 2012, sp. zn. 31 Nd 200/2012, publikovaném ve Sbírce soudních rozhodnutí a stanovisek pod č. 4/2013, vyložil, že skutečnost, zda povinný má exekučně postižitelný majetek na území České republiky, který by mohl být po nařízení exekuce soudním exekutorem zajištěn a zpeněžen, vyjde najevo až činností soudem pověřeného soudního exekutora v rámci provádění exekuce.",
           [
               ("31 Nd 200/2012", DEC, "31 Nd 200/2012"),
           ]),
    Record("blind-12", "sample_corpus/esbirka/pdf/89-2024.pdf",
           "88. V § 57 odst. 1 úvodní části ustanovení se za slovo „Fyzická“ vkládají slova „ , právnická nebo\npodnikající fyzická“.",
           [
               ("§ 57 odst. 1", LAW, "§ 57 odst. 1"),
           ]),
    Record("blind-14", "sample_corpus/esbirka/pdf/90-2024.pdf",
           "b) nedohlíží na dodržování provozního řádu jím provozované střelnice, nezajistí vedení\nprovozní knihy střelnice nebo její uchování nebo nezajistí zápis do centrálního registru\nzbraní v případě, že na střelnici prováděl střelbu cizinec, který neměl místo pobytu na\núzemí České republiky a který se neprokázal oprávněním pro přeshraniční přemístění\nzbraně nebo střeliva.\nStrana 66 Akt č. 90 / 2024 Sb.",
           [
               ("Akt č. 90 / 2024 Sb.", LAW, "90/2024 Sb."),
           ]),
    Record("blind-15", "sample_corpus/esbirka/pdf/90-2024.pdf",
           "(2) Příslušník policie může při postupu podle odstavce 1 zastavovat dopravní prostředky převáže-\njící zbraně nebo střelivo.\nHLAVA X\nNález zbraně nebo střeliva a opuštění zbraně nebo střeliva\n§ 115",
           [
           ]),
    Record("blind-16", "sample_corpus/esbirka/pdf/176-2025.pdf",
           "3. V § 15 odst. 4 větě druhé se slova „stanovených zvláštním právním předpisem pro užívání\nstaveb.63)“ nahrazují slovy „podle stavebního zákona.“.\nPoznámka pod čarou č. 63 se zrušuje.",
           [
               ("§ 15 odst. 4 větě druhé", LAW, "§ 15 odst. 4"),
               ("stavebního zákona", LAW, "283/2021 Sb."),
           ]),
    Record("blind-18", "sample_corpus/esbirka/pdf/316-2025.pdf",
           "145. V § 132 odst. 1 se slovo „přiřazované“ zrušuje.\nAkt č. 316 / 2025 Sb. Strana 43",
           [
               ("§ 132 odst. 1", LAW, "§ 132 odst. 1"),
               ("Akt č. 316 / 2025 Sb.", LAW, "316/2025 Sb."),
           ]),
    Record("blind-19", "sample_corpus/esbirka/pdf/316-2025.pdf",
           "67. V § 76 odst. 4 se slova „Upravené zahrnuté daně“ nahrazují slovy „Upravená výše zahrnutých\ndaní“ a slovo „nezahrnují“ se nahrazuje slovem „nezahrnuje“.",
           [
               ("§ 76 odst. 4", LAW, "§ 76 odst. 4"),
           ]),
    Record("blind-20", "sample_corpus/esbirka/pdf/88-2024.pdf",
           "(3) V případě přerušení hlasování zabezpečí okrsková volební komise volební schránky a přenosné\nvolební schránky tak, aby do nich nebylo možné vkládat hlasovací lístky ani je vybírat, a za-\nbezpečí i ostatní volební dokumentaci. Před opětovným zahájením hlasování předseda okrskové\nvolební komise za přítomnosti členů okrskové volební komise ověří neporušenost zabezpečení.\n§ 52\nUkončení hlasování",
           [
           ]),
]


if __name__ == "__main__":
    main()
