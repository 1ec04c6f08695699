#!/usr/bin/python3
"""check_fmu_md.py FMU - check an FMU's modelDescription.xml against rules of
the FMI 2.0 standard (section 2.2), written from the standard's text:

  - fmiModelDescription has fmiVersion "2.0", modelName and guid;
  - every ScalarVariable has a unique name and a valueReference unique
    among the variables of its base type (Real, Integer, ...);
  - causality, variability and initial take the standard's values, in the
    combinations its tables allow (continuous only for Real; inputs and
    independent variables have no initial; parameters are exact, ...);
  - start is given where initial is exact or approx and for inputs, and
    not where initial is calculated;
  - every unit used (unit, displayUnit of a variable or a SimpleType) is
    declared in UnitDefinitions;
  - ModelStructure/Outputs lists exactly the outputs (1-based indices);
  - a CoSimulation (or ModelExchange) element has a modelIdentifier, and
    the archive holds binaries/linux64/<modelIdentifier>.so.

Prints one line per finding and exits 1 if there is any, else prints a
summary and exits 0.  It first runs itself on a known-bad description, so a
rule that no longer finds anything fails here instead of passing every FMU.
"""
import sys
import xml.etree.ElementTree as ET
import zipfile

CAUSALITY = {"parameter", "calculatedParameter", "input", "output", "local", "independent"}
VARIABILITY = {"constant", "fixed", "tunable", "discrete", "continuous"}
TYPES = {"Real", "Integer", "Boolean", "String", "Enumeration"}
# (causality, variability) -> allowed initial values, the default first
# (standard 2.2.7, the tables of causality/variability and of initial).
ALLOWED = {
    ("output", "constant"): ["exact"],
    ("local", "constant"): ["exact"],
    ("parameter", "fixed"): ["exact"],
    ("parameter", "tunable"): ["exact"],
    ("calculatedParameter", "fixed"): ["calculated", "approx"],
    ("calculatedParameter", "tunable"): ["calculated", "approx"],
    ("local", "fixed"): ["calculated", "approx"],
    ("local", "tunable"): ["calculated", "approx"],
    ("input", "discrete"): [None],
    ("input", "continuous"): [None],
    ("output", "discrete"): ["calculated", "exact", "approx"],
    ("output", "continuous"): ["calculated", "exact", "approx"],
    ("local", "discrete"): ["calculated", "exact", "approx"],
    ("local", "continuous"): ["calculated", "exact", "approx"],
    ("independent", "continuous"): [None],
}


def check_description(root, names):
    """Findings of one modelDescription (root element) in an archive whose
    entry names are `names`."""
    found = []
    if root.tag != "fmiModelDescription":
        return ["root element is %s, not fmiModelDescription" % root.tag]
    if root.get("fmiVersion") != "2.0":
        found.append("fmiVersion is %r, not '2.0'" % root.get("fmiVersion"))
    for attr in ("modelName", "guid"):
        if not root.get(attr):
            found.append("fmiModelDescription has no %s" % attr)
    units = {u.get("name") for u in root.iter("Unit")}
    types = {}
    for st in root.iter("SimpleType"):
        for t in st:
            types[st.get("name")] = t
            for a in ("unit", "displayUnit"):
                if t.get(a) and t.get(a) not in units:
                    found.append("SimpleType %s: unit %r not in UnitDefinitions"
                                 % (st.get("name"), t.get(a)))
    mv = root.find("ModelVariables")
    variables = list(mv) if mv is not None else []
    seen_names, seen_refs = set(), {}
    outputs = []
    for i, v in enumerate(variables, 1):
        name = v.get("name")
        where = "ScalarVariable %d (%s)" % (i, name)
        if not name:
            found.append("%s: no name" % where)
        elif name in seen_names:
            found.append("%s: name used twice" % where)
        seen_names.add(name)
        typed = [t for t in v if t.tag in TYPES]
        if len(typed) != 1:
            found.append("%s: needs exactly one type element" % where)
            continue
        t = typed[0]
        ref = v.get("valueReference")
        if ref is None or not ref.isdigit():
            found.append("%s: valueReference %r is not an unsigned integer" % (where, ref))
        elif (t.tag, ref) in seen_refs:
            found.append("%s: valueReference %s of a %s already used by %s"
                         % (where, ref, t.tag, seen_refs[(t.tag, ref)]))
        else:
            seen_refs[(t.tag, ref)] = name
        caus = v.get("causality", "local")
        var = v.get("variability", "continuous")
        init = v.get("initial")
        if caus not in CAUSALITY:
            found.append("%s: causality %r" % (where, caus))
            continue
        if var not in VARIABILITY:
            found.append("%s: variability %r" % (where, var))
            continue
        if var == "continuous" and t.tag != "Real":
            found.append("%s: variability continuous needs Real, not %s" % (where, t.tag))
        allowed = ALLOWED.get((caus, var))
        if allowed is None:
            found.append("%s: causality %s with variability %s is not allowed"
                         % (where, caus, var))
            continue
        if init is not None and init not in allowed:
            found.append("%s: initial %r not allowed for %s/%s (allowed: %s)"
                         % (where, init, caus, var, ", ".join(str(a) for a in allowed)))
        eff = init if init is not None else allowed[0]
        has_start = t.get("start") is not None
        if (eff in ("exact", "approx") or caus == "input") and not has_start:
            found.append("%s: no start value (initial %s, causality %s)" % (where, eff, caus))
        if eff == "calculated" and has_start:
            found.append("%s: start value with initial calculated" % where)
        unit = t.get("unit")
        if unit is None and t.get("declaredType") in types:
            unit = types[t.get("declaredType")].get("unit")
        for u in (unit, t.get("displayUnit")):
            if u and u not in units:
                found.append("%s: unit %r not in UnitDefinitions" % (where, u))
        if caus == "output":
            outputs.append(i)
    ms = root.find("ModelStructure")
    listed = [int(u.get("index", "0")) for u in ms.find("Outputs")] \
        if ms is not None and ms.find("Outputs") is not None else []
    if sorted(listed) != outputs:
        found.append("ModelStructure/Outputs lists %s, the outputs are %s" % (listed, outputs))
    kinds = [root.find(k) for k in ("CoSimulation", "ModelExchange")]
    if not any(k is not None for k in kinds):
        found.append("neither CoSimulation nor ModelExchange")
    for k in kinds:
        if k is None:
            continue
        ident = k.get("modelIdentifier")
        if not ident:
            found.append("%s has no modelIdentifier" % k.tag)
        elif "binaries/linux64/%s.so" % ident not in names:
            found.append("%s modelIdentifier %s: no binaries/linux64/%s.so in the archive"
                         % (k.tag, ident, ident))
    return found


BAD = """<fmiModelDescription fmiVersion="1.0" guid="{g}">
  <CoSimulation modelIdentifier="other"/>
  <UnitDefinitions><Unit name="m"/></UnitDefinitions>
  <ModelVariables>
    <ScalarVariable name="a" valueReference="1" causality="input"><Real unit="kg"/></ScalarVariable>
    <ScalarVariable name="b" valueReference="1" causality="parameter" variability="continuous"><Real start="1"/></ScalarVariable>
    <ScalarVariable name="c" valueReference="2" causality="output" initial="calculated"><Real start="0"/></ScalarVariable>
    <ScalarVariable name="d" valueReference="3" causality="output" variability="continuous"><Integer/></ScalarVariable>
  </ModelVariables>
  <ModelStructure><Outputs><Unknown index="3"/></Outputs></ModelStructure>
</fmiModelDescription>"""
BAD_FINDS = ["fmiVersion", "no modelName", "unit 'kg'", "no start value", "already used",
             "parameter with variability continuous", "start value with initial calculated",
             "continuous needs Real", "ModelStructure/Outputs", "no binaries/linux64/other.so"]


def self_test():
    found = "\n".join(check_description(ET.fromstring(BAD), set()))
    missing = [f for f in BAD_FINDS if f not in found]
    if missing:
        print("check_fmu_md: the self-test did not find: %s\n%s" % (missing, found))
        sys.exit(2)


def main():
    self_test()
    if len(sys.argv) != 2:
        print("usage: check_fmu_md.py FMU")
        return 2
    with zipfile.ZipFile(sys.argv[1]) as z:
        names = set(z.namelist())
        root = ET.fromstring(z.read("modelDescription.xml"))
    found = check_description(root, names)
    for f in found:
        print("%s: %s" % (sys.argv[1], f))
    if found:
        return 1
    print("check_fmu_md: %s: %d variables, FMI 2.0 rules hold"
          % (sys.argv[1], len(list(root.find("ModelVariables")))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
