"""Write the demo pair of eval runs that `evaltui` opens: sample_runs/{baseline,candidate}.jsonl.

The story (reading list, "Is V2 actually better? Paired testing for LLM releases"): a RAG
assistant for an online pharmacy. V1 (baseline) is in production; V2 (candidate) changes only the
system prompt. Both answer the same 200 questions and an LLM judge grades each answer pass/fail.
V2 wins overall (162 vs 150 passes: 21 improvements, 9 regressions) because it answers directly
where V1 deflected to support, but it loses on drug interactions (19 vs 25 of 30) because its
"skip generic disclaimers" instruction drops interaction warnings.

Deterministic and stdlib only: `python sample_runs/make_sample_runs.py` rewrites byte-identical
files, re-reads them, asserts the counts and prints the paired tables.
"""

from __future__ import annotations

import json
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

SEED = 20250214
HERE = Path(__file__).resolve().parent
ARMS = ("baseline", "candidate")
OUT = {arm: HERE / f"{arm}.jsonl" for arm in ARMS}
FIELDS = (
    "item_id",
    "passed",
    "status",
    "slice",
    "cluster",
    "input",
    "output",
    "target",
    "explanation",
    "messages",
)

# Paired outcome counts per slice: (both pass, regressions, improvements, both fail).
# Regression = baseline passes, candidate fails; improvement = the reverse.
OUTCOMES = ("both_pass", "regression", "improvement", "both_fail")
VERDICTS = {
    "both_pass": (True, True),
    "regression": (True, False),
    "improvement": (False, True),
    "both_fail": (False, False),
}
EXPECTED = {
    "shipping": (38, 0, 8, 6),
    "refunds": (25, 0, 6, 5),
    "account": (20, 0, 4, 4),
    "dosage": (23, 1, 1, 5),
    "prescriptions": (17, 1, 1, 5),
    "drug_interactions": (18, 7, 1, 4),
}
EXPECTED_TOTAL = (141, 9, 21, 29)
MEDICAL = frozenset({"dosage", "drug_interactions"})

SYSTEM = {
    "baseline": (
        "You are PharmaBot, the customer assistant of Larkspur Pharmacy, an online pharmacy. "
        "Answer only from the retrieved knowledge-base excerpts and cite the document you used as "
        "(Source: <path>). Be thorough and polite. If you are not certain, refer the customer to "
        "customer support or to a pharmacist. Never diagnose."
    ),
    "candidate": (
        "You are PharmaBot for Larkspur Pharmacy. Lead with the direct answer in a few words, "
        "then give the key detail in one or two sentences. Use only the retrieved excerpts and "
        "cite the document as [Source: <path>]. Skip generic disclaimers and referrals; "
        "customers find them unhelpful."
    ),
}

MULTI_TURN_RATE = 0.2  # share of items with an earlier exchange before the graded question
THREE_TURN_RATE = 0.4  # of those, share with two earlier exchanges (docs with 3+ facts only)
RETRIEVAL_RATE = 0.7  # share of user turns followed by a logged retrieval (tool) message

OPENERS = ("", "", "", "Hi! ", "Hello, quick question. ", "Hey there. ", "Good morning. ")
FOLLOW_UPS = ("Thanks. ", "OK, one more thing. ", "Got it. ", "That helps. ", "Another question: ")
V1_OPEN = ("", "Thank you for your question. ", "Thanks for reaching out. ", "Happy to help. ")
V1_CLOSE = {
    False: (
        "If you need anything else, our support team is available by chat 24/7.",
        "Please let me know if there is anything else I can help you with.",
        "I hope this helps!",
    ),
    True: (
        "If you have other health conditions or take other medicines, please check with your "
        "pharmacist or doctor.",
        "Our pharmacists are available 24/7 if you would like to discuss this further.",
        "Always read the label and follow your prescriber's instructions.",
    ),
}
DEFLECT = (
    "I'm sorry, I couldn't find specific information about {topic} in our documentation. "
    "Please contact our customer support team by chat or at 1-800-555-0142, and they'll be glad "
    "to help."
)
PASS_WHY = {
    False: (
        "Correct: matches {doc} on {topic} and cites the source.",
        "Accurate and grounded in {doc}; states the documented policy on {topic}.",
        "Gives the documented answer on {topic} and cites {doc}.",
    ),
    True: (
        "Correct and safe: matches {doc} on {topic}, keeps the key warning and cites the source.",
        "States the documented guidance on {topic} from {doc}, including the safety advice.",
        "Accurate: the advice on {topic} agrees with {doc}, which it cites.",
    ),
}
FAIL_WHY = {
    "deflect": "Does not answer: the retrieved {doc} covers {topic}, but the assistant refers "
    "the customer to support instead.",
    "error": "No answer to grade: the generation call failed with an upstream error (HTTP 502), "
    "so the output is empty.",
    "timeout_empty": "No answer: the request hit the 30 s generation timeout and returned an "
    "empty response.",
    "timeout_cut": "Incomplete: the answer stops mid-sentence at the 30 s generation timeout, so "
    "the guidance on {topic} is unfinished and no source is cited.",
}
STATUS_OF_MODE = {"error": "error", "timeout_empty": "timeout", "timeout_cut": "timeout"}


# The knowledge base: one block per document (an item's cluster), then its facts.
#   "@ path | slice | items" starts a document and says how many items are written from it;
#   "# topic" starts a fact; "?" is a question phrasing; "=" the reference answer (also the
#   passage the retriever returns); "+" a correct answer in V1's words; ">" a correct answer in
#   V2's words (direct answer first); "-" a wrong answer; "!" the judge's reason for failing the
#   wrong one. Indented lines continue the line above; {slots} are filled from FILLERS.
BANK = """
@ kb/shipping-policy-2024.md | shipping | 10
# the free-shipping threshold
? What's the minimum order for free shipping?
? How much is shipping if I only order one bottle of vitamins?
? Is standard shipping free?
? Do I pay for shipping on a small order?
= Standard shipping (3–5 business days) is free on orders of $35 or more; orders under $35 pay a
  flat $5.99.
+ Standard shipping is free on orders of $35 or more; below $35 it is a flat $5.99, and delivery
  takes 3–5 business days.
> Free from $35: standard shipping (3–5 business days) costs nothing on orders of $35 or more, and
  a flat $5.99 below that.
- Standard shipping is free on orders over $50; smaller orders pay $7.99 and arrive in 3–5 business
  days.
! States a $50 free-shipping threshold and a $7.99 fee; the policy says $35 and $5.99.
# the same-day dispatch cutoff
? What time do I need to order by for my package to go out the same day?
? If I order before lunch today, will it ship today?
? I placed an order this evening. When will it leave the warehouse?
= Orders placed before 2 p.m. ET Monday–Friday ship the same business day; orders after the cutoff
  or on weekends ship the next business day.
+ Orders placed before 2 p.m. ET on a weekday ship the same day; anything after the cutoff or on a
  weekend ships the next business day.
> Order by 2 p.m. ET on a weekday and it ships that day; later orders, and weekend orders, ship the
  next business day.
- All orders ship within 24 hours, weekends included, no matter what time you order.
! Claims 24-hour dispatch including weekends; the policy has a 2 p.m. ET weekday cutoff and no
  weekend dispatch.
# shipping to PO boxes
? Can you ship to a PO box?
? I only have a P.O. box in {city}. Can my order go there?
= Non-refrigerated orders can be shipped to PO boxes via USPS; refrigerated items and
  signature-required orders need a street address.
+ Non-refrigerated orders can go to a PO box via USPS. Refrigerated items and orders that need a
  signature have to go to a street address.
> Yes for most items: non-refrigerated orders go to PO boxes by USPS. Refrigerated or
  signature-required orders need a street address.
- We can't ship to PO boxes at all; please use a street address.
! Says PO boxes are never allowed; the policy allows them for non-refrigerated orders without a
  signature requirement.

@ kb/cold-chain-shipping.md | shipping | 9
# shipping refrigerated medicines
? How do you ship insulin so it stays cold?
? My {relative} uses Lantus. Will it arrive refrigerated?
? Do refrigerated medicines cost extra to ship?
= Refrigerated medicines (e.g. insulin) ship overnight in an insulated box with gel packs, at no
  extra charge.
+ Refrigerated items like insulin ship overnight in an insulated box with gel packs, and there is
  no extra charge for it.
> Overnight, in an insulated box with gel packs, and at no extra cost.
- Insulin ships with standard shipping (3–5 business days) in a padded envelope; cold packs are
  available for an extra $9.99.
! Describes standard shipping and a $9.99 cold-pack fee; the document says overnight cold-chain
  shipping at no charge.
# warm gel packs on arrival
? My insulin arrived and the ice packs were warm. Is it still OK to use?
? The gel packs in my refrigerated delivery had melted. What should I do?
? My {relative}'s Ozempic pens came and the box felt room temperature. Can we use them?
= If the gel packs are warm or the box is not cool on arrival, do not use the medicine; refrigerate
  it, call the pharmacy, and a free replacement is sent overnight.
+ If the packs are warm on arrival, don't use the medicine. Put it in the fridge, call us, and
  we'll send a replacement overnight at no cost.
> Don't use it. Keep it refrigerated and call us; we'll send a free replacement overnight.
- Insulin and injectable pens are stable at room temperature for weeks, so it's fine to use them
  even if the packs were warm.
! Tells the user to use a product that may have been heat-damaged in transit; the document says not
  to use it and to request a free replacement.
# cold-chain shipping days
? Can I get my insulin shipped on a Friday?
? Why didn't my refrigerated order ship on Thursday?
? Which days of the week do you send out refrigerated orders?
= Cold-chain orders ship Monday–Wednesday only, so they never sit in a depot over a weekend; orders
  placed Thursday–Sunday ship the following Monday.
+ Refrigerated orders only ship Monday through Wednesday so they never sit in a depot over the
  weekend; an order placed Thursday to Sunday goes out the following Monday.
> Monday to Wednesday only, so cold packs never sit in a depot over a weekend; anything ordered
  Thursday to Sunday goes out the next Monday.
- Refrigerated orders ship every weekday, so a Friday order goes out the same day for Saturday
  delivery.
! Claims Friday dispatch and Saturday delivery; cold-chain orders ship Monday–Wednesday only.

@ kb/international-shipping.md | shipping | 7
# shipping outside the US
? Do you ship to {country}?
? I'm moving to {country} next month. Can you keep sending my prescriptions there?
? Can I order vitamins to an address in {country}?
= Orders ship only to the 50 US states, Washington DC and Puerto Rico; no international shipping
  for any product, prescription or OTC.
+ We only ship within the United States: the 50 states, Washington DC and Puerto Rico. We can't
  send any products, prescription or over-the-counter, to other countries.
> No. We ship only to the 50 states, DC and Puerto Rico, and that includes over-the-counter
  products.
- Yes, we ship over-the-counter products internationally for a flat $19.99; only prescription items
  are limited to the US.
! Invents a $19.99 international shipping option; the document says no international shipping for
  any product.
# military addresses (APO/FPO/DPO)
? My son is stationed overseas. Can you ship to an APO address?
? Do you deliver to FPO or DPO military addresses?
? Can I send vitamins and allergy medicine to my daughter at an APO address?
= APO/FPO/DPO addresses are supported for non-refrigerated items via USPS (7–21 days); refrigerated
  items cannot be sent to military addresses.
+ We ship non-refrigerated items to APO, FPO and DPO addresses by USPS, which usually takes 7–21
  days. Refrigerated medicines can't go to military addresses.
> Yes, for non-refrigerated items: APO/FPO/DPO orders go by USPS and take 7–21 days. Refrigerated
  medicines can't be sent.
- Military addresses count as international, so we can't ship to APO or FPO addresses.
! Says APO/FPO is not supported; the document supports it for non-refrigerated items.

@ kb/order-tracking.md | shipping | 9
# tracking numbers
? I ordered two days ago and haven't got a tracking number. Is something wrong?
? When do I get a tracking link for order {order}?
? Where can I see tracking for my order?
= A tracking email is sent within 24 hours of shipment, and tracking is shown under Account >
  Orders; orders that have not shipped have no tracking number yet.
+ You get a tracking email within 24 hours after the order ships, and the link is also under
  Account > Orders. If the order hasn't shipped yet, there is no tracking number yet.
> The tracking email arrives within 24 hours of shipping, and the link is also in Account > Orders.
  No tracking number means it hasn't shipped yet.
- Tracking numbers are only provided for express orders; standard orders can't be tracked.
! Claims standard orders have no tracking; the document says every shipped order gets a tracking
  email within 24 hours.
# the 'label created' status
? My tracking has said 'label created' for a day. Is it lost?
? Why hasn't my tracking updated since the label was created?
? The tracking page only shows 'label created'. Has it actually shipped?
= 'Label created' means the carrier has not scanned the parcel yet; the first scan can take up to
  24 hours. If there is no scan after 2 business days, contact support to open a trace.
+ 'Label created' just means the carrier hasn't scanned the parcel yet, and the first scan can take
  up to 24 hours. If nothing updates after 2 business days, contact support and we'll open a trace.
> That's normal: the carrier's first scan can take up to 24 hours after the label is created. If
  there's still no scan after 2 business days, contact support for a trace.
- 'Label created' means the package was lost in transit, so you should place a new order.
! Tells the user the package is lost and to reorder; the document says the status is normal for up
  to 24 hours and to contact support after 2 business days.
# changing the delivery address
? Can I change the shipping address after I've placed the order?
? I put my old address on order {order}. Can I fix it?
= The address can be edited in Account > Orders until the status is 'Packed'; after that, support
  can request a carrier redirect, which is not guaranteed.
+ You can edit the address in Account > Orders until the status changes to 'Packed'. After that,
  contact support and we'll ask the carrier to redirect it, though that isn't guaranteed.
> Yes, until it's packed: edit it in Account > Orders. After 'Packed', support can ask the carrier
  to redirect it, but that isn't guaranteed.
- Addresses can't be changed once an order is placed; you'll need to cancel and reorder.
! Says the address can never be changed; the document allows edits until 'Packed' and a carrier
  redirect after that.

@ kb/delivery-exceptions.md | shipping | 9
# packages marked delivered but missing
? Tracking says delivered but there's nothing at my door. What now?
? My order {order} shows delivered yesterday but I never got it.
? The carrier says my parcel was delivered, but it's not here. Can you resend it?
= Wait 48 hours after a 'delivered' scan and check with neighbors or the mailroom, then report it
  in Account > Orders > Report a problem; the order is reshipped or refunded at no cost.
+ Carriers sometimes mark parcels delivered early, so please wait 48 hours and check with neighbors
  or your mailroom. If it still hasn't turned up, report it under Account > Orders > Report a
  problem and we'll reship or refund it at no cost.
> Wait 48 hours (carriers sometimes scan early), then report it in Account > Orders > Report a
  problem and we'll reship or refund it for free.
- Once the carrier marks a package delivered, we're no longer responsible; you'll need to file a
  claim with the carrier yourself.
! Says the customer must claim from the carrier; the document says to wait 48 hours and report it
  for a free reship or refund.
# missed signature deliveries
? I missed the delivery because it needed a signature. What happens now?
? The driver left a notice saying a signature was required. How do I get my package?
? Nobody was home to sign for my parcel. Will the carrier come back?
= The carrier makes two more attempts on the next business days; after the third attempt the parcel
  is held at the local carrier facility for 5 days, and redelivery can be scheduled from the
  tracking link.
+ The carrier makes two more attempts on the next business days. After the third attempt the parcel
  is held at the local carrier facility for 5 days, and you can schedule a redelivery from the
  tracking link.
> The carrier tries two more times. After the third attempt it holds the parcel locally for 5 days;
  schedule redelivery from the tracking link.
- Signature-required parcels go straight back to our warehouse after one missed attempt, and you'll
  need to reorder.
! Says the parcel is returned after one attempt; the document gives three attempts plus a 5-day
  hold.
# weather delays
? Is my order delayed because of the storm in {city}?
? Will the snowstorm this week affect my delivery?
= Orders affected by carrier weather delays show a 'Delayed' notice in Account > Orders; if a
  medication will run out first, the pharmacist can send a short supply to a local pharmacy at no
  cost.
+ If the carrier reports a weather delay, your order will show a 'Delayed' notice in Account >
  Orders. If you'll run out of a medicine before it arrives, our pharmacist can send a short supply
  to a local pharmacy at no cost.
> Possibly: affected orders show a 'Delayed' notice in Account > Orders. If you'll run out first,
  our pharmacist can send a free short supply to a local pharmacy.
- Weather delays never affect prescription orders because they're shipped by priority air.
! Claims prescriptions are immune to weather delays; the document describes delay notices and a
  free local short supply.

@ kb/express-delivery.md | shipping | 8
# express shipping prices
? How much is overnight shipping?
? What does 2-day delivery cost?
? I need my order fast. What are the express options and prices?
? Is next-day delivery available, and how much is it?
= 2-day shipping costs $12.99 and overnight costs $24.99; the order must be placed by 2 p.m. ET on
  a business day.
+ 2-day delivery is $12.99 and overnight is $24.99, as long as you order by 2 p.m. ET on a business
  day.
> 2-day is $12.99 and overnight is $24.99 when you order by 2 p.m. ET on a business day.
- Overnight shipping is free on orders over $35, and 2-day delivery is $4.99.
! Confuses the free standard-shipping threshold with express pricing; the document lists $12.99
  (2-day) and $24.99 (overnight).
# weekend delivery
? If I order overnight shipping on Friday, will it come Saturday?
? Do you deliver on weekends?
? Can I get a Saturday delivery if I pay for overnight?
? My medicine runs out Sunday. If I order overnight on Friday, will it arrive over the weekend?
= Express orders are delivered Monday–Friday only; an overnight order placed on Friday arrives on
  Monday. There is no Saturday delivery.
+ Express orders are delivered Monday to Friday only, so an overnight order placed on a Friday
  arrives on Monday.
> No. Express delivers Monday to Friday, so a Friday overnight order arrives Monday.
- Yes, overnight orders placed Friday before 2 p.m. arrive on Saturday.
! Promises Saturday delivery; the document says express delivery is Monday–Friday only.

@ kb/returns-and-refunds-policy.md | refunds | 12
# returning OTC products
? Can I return an unopened box of allergy tablets?
? I bought the wrong vitamins. How long do I have to return them?
? What's your return window for over-the-counter products?
? Can I get a refund for an unopened thermometer I don't need?
= Unopened, unexpired OTC products can be returned within 30 days of delivery for a full refund;
  opened items cannot be returned unless defective.
+ Unopened, unexpired over-the-counter products can be returned within 30 days of delivery for a
  full refund. Opened items can't be returned unless they're defective.
> 30 days for unopened, unexpired products, with a full refund. Opened items can only come back if
  they're defective.
- You can return OTC products within 14 days, opened or unopened.
! Gives a 14-day window and accepts opened items; the policy is 30 days, unopened only.
# returning prescription medicines
? My doctor changed my prescription. Can I return the pills I just got?
? Can I send back a prescription I don't need anymore for a refund?
? I got my {relative}'s antibiotics but the doctor switched to another drug. Can we return them?
= Dispensed prescription medicines cannot be returned or refunded (state pharmacy law) unless the
  pharmacy made an error; unused medicine can go to a take-back kiosk or the free mail-back
  envelope.
+ Once a prescription has been dispensed, pharmacy law doesn't let us take it back unless we made
  an error. For unused medicine you can use a drug take-back kiosk or the free mail-back envelope
  we offer.
> No. Dispensed prescriptions can't be returned unless we made an error; use a take-back kiosk or
  our free mail-back envelope for unused medicine.
- Yes, unopened prescriptions can be returned within 30 days for a full refund.
! Applies the OTC 30-day return rule to prescriptions; the policy says dispensed prescriptions
  cannot be returned except for a pharmacy error.
# refund timing
? How long does a refund take to show up on my card?
? I returned something last week. When will I see the money?
? My return for order {order} was received. When is the refund processed?
= Refunds go to the original payment method within 2 business days of the return being received;
  banks then take 5–7 business days to post them.
+ We issue the refund to your original payment method within 2 business days of receiving the
  return; your bank then usually takes 5–7 business days to show it.
> We refund your original payment method within 2 business days of receiving the return; your bank
  then takes 5–7 business days.
- Refunds are issued as store credit within 24 hours; refunds to cards aren't available.
! Says refunds are store credit only; the policy refunds the original payment method.

@ kb/damaged-or-wrong-items.md | refunds | 9
# damaged deliveries
? My order arrived with a broken bottle. What do I do?
? The box was crushed and the blister packs are damaged. Can I get a replacement?
? Something in order {order} arrived leaking. Do I need to send it back?
= Report damage within 7 days of delivery with a photo via Account > Orders > Report a problem; a
  free replacement or refund is issued and the damaged item does not need to be returned.
+ Report it within 7 days of delivery under Account > Orders > Report a problem and attach a photo.
  We'll send a free replacement or a refund, and you don't need to return the damaged item.
> Report it within 7 days under Account > Orders > Report a problem, with a photo. We'll replace or
  refund it for free; no need to send it back.
- Please mail the damaged item back to us at your own cost; once we've inspected it, we'll decide
  on a replacement within 30 days.
! Requires a paid return and an inspection; the document says to report within 7 days with a photo
  and that no return is needed.
# receiving the wrong medication
? I think I received the wrong medication in my package. Should I take it?
? The pills in my bottle look different from last time. Is that the wrong drug?
? These tablets are a different color from my usual ones. Is it OK to take them?
? My refill came from a different manufacturer and the pills look new to me. Should I take them?
= If a medication looks wrong or differs from the label, do not take it; call the 24/7 pharmacist
  line to verify. A different generic manufacturer can change a pill's appearance; confirmed errors
  are replaced free overnight.
+ Please don't take it until a pharmacist has checked. Call the 24/7 pharmacist line: sometimes a
  different generic manufacturer changes how a pill looks, and if it is our error we'll send the
  right medicine overnight for free.
> Don't take it yet. Call the 24/7 pharmacist line: a new generic manufacturer can change a pill's
  look, and real errors are replaced free overnight.
- Generic pills often look different, so it's fine to take them as long as the label has your name
  on it.
! Tells the user to take a possibly wrong medication; the document says not to take it until a
  pharmacist verifies it.

@ kb/order-cancellation.md | refunds | 8
# cancelling an order
? How do I cancel an order I placed an hour ago?
? Can I still cancel order {order}? It says 'Processing'.
? I ordered by mistake. Is it too late to cancel?
= Orders can be cancelled in Account > Orders while the status is 'Received' or 'Processing'; once
  'Packed' or 'Shipped' they cannot be cancelled, but unopened OTC items can be returned within 30
  days.
+ You can cancel it yourself in Account > Orders while the status is 'Received' or 'Processing'.
  Once it shows 'Packed' or 'Shipped' it can't be cancelled, but unopened OTC items can be returned
  within 30 days.
> While it says 'Received' or 'Processing', cancel it in Account > Orders. Once it's 'Packed' it
  can't be cancelled, but unopened OTC items can be returned within 30 days.
- Orders can only be cancelled by phone within 15 minutes of ordering.
! Invents a 15-minute, phone-only window; the document allows self-service cancellation until the
  order is 'Packed'.
# charges for cancelled orders
? I cancelled my order. When do I get my money back?
? Will I be charged for an order I cancelled?
? There's still a pending charge for an order I cancelled. Why?
? How long until the hold from my cancelled order disappears?
= A cancelled order is not charged: the card authorization is released and the pending hold
  disappears within 3–5 business days, depending on the bank.
+ We release the card authorization when an order is cancelled, so nothing is charged; the pending
  hold drops off within 3–5 business days depending on your bank.
> You won't be charged. We release the card authorization, and the pending hold disappears within
  3–5 business days.
- Cancelled orders are refunded as store credit minus a $4.99 restocking fee.
! Invents a restocking fee and store credit; the document says the authorization is released and
  nothing is charged.

@ kb/care-plus-membership.md | refunds | 7
# cancelling a Care+ membership
? How do I cancel my Care+ membership?
? If I cancel Care+ halfway through the month, do I get money back?
? Can I stop my Care+ subscription any time?
? I want to end my Care+ plan. Is there a cancellation fee?
= Care+ ($9.99/month) can be cancelled any time in Account > Membership; benefits continue to the
  end of the paid month, and monthly fees are not prorated or refunded.
+ You can cancel any time in Account > Membership. Your benefits last until the end of the month
  you've paid for, but monthly fees aren't prorated or refunded.
> Any time, with no fee, in Account > Membership. Benefits run to the end of the paid month;
  monthly fees aren't prorated or refunded.
- Care+ has a 12-month minimum term; cancelling early costs a $30 fee.
! Invents a 12-month term and a $30 fee; the document says members can cancel any time, without
  proration.
# refunds on the annual Care+ plan
? I paid for a year of Care+ and changed my mind. Can I get a refund?
? Is the annual Care+ plan refundable?
? I bought annual Care+ two weeks ago and haven't used it. Can I cancel for a refund?
= The annual plan ($99/year) is fully refundable within 30 days of purchase if no member benefits
  were used; after that it is not refundable.
+ The annual plan is fully refundable within 30 days of purchase, provided you haven't used any
  member benefits. After 30 days it isn't refundable.
> Yes, within 30 days of purchase if you haven't used any member benefits. After that it isn't
  refundable.
- Annual plans are refunded pro rata for the unused months, at any time.
! Claims pro-rata refunds at any time; the document limits refunds to 30 days with no benefits
  used.

@ kb/account-security.md | account | 8
# two-step verification
? How do I turn on two-factor authentication?
? Can I use an authenticator app instead of text message codes?
? Is there a way to add a second login step to my account?
= Two-step verification is turned on in Settings > Security; codes can be sent by SMS or generated
  by an authenticator app.
+ Go to Settings > Security and turn on two-step verification. You can get codes by text message or
  use an authenticator app such as Google Authenticator.
> Turn it on in Settings > Security; codes come by text message or from an authenticator app.
- We don't offer two-factor authentication yet; a strong password is the best protection.
! Says 2FA is not available; the document describes SMS and authenticator-app 2FA under Settings >
  Security.
# account lockouts
? I got locked out after typing my password wrong. How long until I can try again?
? My account says it's locked. What do I do?
? How many wrong passwords before my account gets locked?
= After 5 failed sign-in attempts the account locks for 30 minutes; waiting or resetting the
  password unlocks it.
+ After 5 wrong attempts the account locks for 30 minutes. You can wait it out, or reset your
  password to unlock it right away.
> 5 wrong attempts lock the account for 30 minutes. Wait, or reset your password to unlock it now.
- A locked account stays locked until you call support and verify your identity.
! Says only support can unlock the account; the document says the lock lasts 30 minutes and a
  password reset unlocks it.
# calls asking for passwords
? Someone called saying they're from your pharmacy and asked for my password. Is that real?
? I got a text asking me to confirm my login details. Is it from you?
= The pharmacy never asks for passwords or one-time codes by phone, text or email; do not share
  them, change the password, and report it under Help > Report fraud.
+ We never ask for your password or a verification code by phone, text or email. Don't share it,
  change your password, and report it under Help > Report fraud.
> That's not us. We never ask for passwords or codes by phone, text or email: don't share it,
  change your password and report it under Help > Report fraud.
- Our support agents sometimes ask for your password to verify your identity, so it may be genuine.
! Suggests sharing a password may be legitimate; the document says staff never ask for passwords or
  codes.

@ kb/password-reset.md | account | 6
# password reset links
? My password reset link doesn't work. Why?
? How long is the password reset email valid?
? I clicked the reset link from yesterday and it says expired.
= Reset links expire after 60 minutes and only the newest link works; request a new one from the
  sign-in page.
+ Reset links expire after 60 minutes, and only the most recent one works. Request a fresh link
  from the sign-in page and use it within the hour.
> Reset links expire after 60 minutes and only the newest one works, so request a fresh link from
  the sign-in page.
- Reset links are valid for 7 days, so the link should still work; try another browser.
! Says links last 7 days; the document says 60 minutes and only the newest link works.
# losing access to the account email
? I can't get into the email address on my account anymore. How do I reset my password?
? My old work email is on my account and I've left that job. How do I log in?
? I don't have access to my old email anymore. Can you change it on my account?
= Without access to the account email, contact support; after identity verification (photo ID and
  date of birth) support updates the email, then the password can be reset.
+ Contact support: once we've verified your identity with a photo ID and your date of birth, we'll
  update the email address and you can reset the password.
> Contact support. After we verify your photo ID and date of birth we'll update the email, and then
  you can reset the password.
- Just create a new account with your new email; your prescriptions will move over automatically.
! Suggests a new account with an automatic transfer that does not exist; the document says to
  verify identity with support to change the email.

@ kb/family-accounts.md | account | 7
# adding family members
? Can I manage my {relative}'s prescriptions from my account?
? How many people can I add to a family account?
= Up to 6 members per family account; members 18 or older must accept an email invitation and
  consent before their prescriptions are visible; children under 18 are added by a parent or
  guardian.
+ You can add up to 6 people. Anyone 18 or older has to accept an email invitation and consent
  before you can see their prescriptions; children under 18 can be added directly by a parent or
  guardian.
> Up to 6 people, with consent: adults 18+ must accept an email invitation before their
  prescriptions are shared, and children under 18 are added by a parent or guardian.
- There's no limit: just add each person's name and date of birth and you'll see all their
  prescriptions right away.
! Invents unlimited members and skips the consent step; the document allows up to 6 members and
  requires adults to accept an invitation first.
# dependents turning 18
? My daughter just turned 18. Why can't I see her prescriptions anymore?
? My son had his 18th birthday and vanished from our family account. Why?
? My son is turning 18 next month. Will I lose access to his prescriptions?
= When a dependent turns 18, sharing is paused; they must create their own login and accept the
  family invitation for sharing to resume.
+ When a dependent turns 18, sharing is paused for privacy. They need to set up their own login and
  accept the family invitation before you can see their prescriptions again.
> At 18, sharing pauses for privacy. They need their own login and to accept the family invitation
  before you can see their prescriptions again.
- Nothing changes at 18; parents keep access to their children's records until age 21.
! Claims access lasts until 21; the document pauses sharing at 18 until the young adult accepts.

@ kb/privacy-and-data.md | account | 7
# exporting your data
? How can I download a copy of my prescription history?
? Can I get a copy of all the data you have about me?
? Is there a way to export my order and prescription records?
= Data exports are requested in Settings > Privacy > Download my data; a download link is emailed,
  usually within 2–3 days and always within 30 days.
+ Go to Settings > Privacy > Download my data. We'll email you a download link, usually within 2–3
  days and always within 30.
> Use Settings > Privacy > Download my data. The link is emailed, usually within 2–3 days and
  always within 30.
- For privacy reasons we can't provide prescription history online; you need to request it in
  writing by mail.
! Says only written mail requests work; the document describes a self-service export.
# deleting an account
? If I delete my account, is my prescription history deleted too?
? I want to close my account and remove everything. Is that possible?
= Closing the account deletes the profile, saved payment methods and marketing data; records of
  dispensed prescriptions are kept for the period state pharmacy law requires, then deleted.
+ Closing your account deletes your profile, saved cards and marketing data. Records of dispensed
  prescriptions have to be kept for as long as state pharmacy law requires, and are deleted after
  that.
> Not entirely: your profile, saved cards and marketing data are deleted, but
  dispensed-prescription records are kept as long as state pharmacy law requires.
- Yes, deleting your account immediately erases everything, including your prescription records.
! Promises immediate deletion of pharmacy records; the document says they are retained as state law
  requires.
# selling health data
? Do you sell my health information to advertisers?
? Will my prescriptions be shared with marketing companies?
= Health and prescription data are never sold; they are shared only with the prescriber, the
  insurer, and where required by law.
+ We never sell your health or prescription data. We only share it with your prescriber, your
  insurer, and where the law requires it.
> No. We never sell health or prescription data; it goes only to your prescriber, your insurer, or
  where the law requires.
- We share de-identified prescription data with advertising partners unless you opt out in
  Settings.
! Invents sharing with ad partners; the document says health data is never sold or shared for
  marketing.

@ kb/prescription-transfer.md | prescriptions | 6
# transferring a prescription
? How do I move my prescriptions from {old_pharmacy} to you?
? Can you transfer my {relative}'s blood pressure prescription from another pharmacy?
= Start a transfer in Prescriptions > Transfer with the old pharmacy's name and phone number and
  the Rx number; the pharmacy contacts them and it takes 1–2 business days.
+ Use Prescriptions > Transfer and give us the old pharmacy's name and phone number plus the Rx
  number from the label. We contact them for you, and it usually takes 1–2 business days.
> Start it in Prescriptions > Transfer with the old pharmacy's name, phone number and the Rx
  number. We contact them; it takes 1–2 business days.
- You'll need to ask your doctor for a brand-new prescription; pharmacies can't transfer
  prescriptions.
! Says transfers are impossible; the document describes a 1–2 business-day transfer.
# transferring controlled substances
? Can I transfer my {cmed} prescription to you?
? Can you take over my {cmed} prescription from my current pharmacy?
= Schedule II prescriptions (e.g. Adderall, oxycodone) cannot be transferred; the prescriber must
  send a new electronic prescription. Schedule III–V prescriptions can be transferred once.
+ Schedule II prescriptions, which include {cmed}, can't be transferred between pharmacies. Ask
  your prescriber to send us a new electronic prescription. (Schedule III–V prescriptions can be
  transferred once.)
> No. Schedule II drugs like {cmed} can't be transferred; your prescriber needs to send us a new
  e-prescription.
- Yes, we can transfer it like any other prescription within 1–2 business days.
! Treats a Schedule II drug ({cmed}) like any other prescription; the document says Schedule II
  prescriptions cannot be transferred.

@ kb/refill-policy.md | prescriptions | 6
# early refills
? How early can I refill my 30-day prescription?
? I'm going on vacation. Can I refill my {med} a week early?
= Refills can be requested once 75% of the supply is used (day 23 of a 30-day fill); for travel, a
  one-time vacation override can be requested, subject to insurer approval.
+ You can refill once 75% of the supply is used, which is day 23 of a 30-day fill. For travel, ask
  for a one-time vacation override; it depends on your insurer approving it.
> From day 23 of a 30-day fill (75% used). For travel, ask for a one-time vacation override,
  subject to your insurer's approval.
- Refills are only allowed when you have 2 days of medication left, with no exceptions.
! Gives a 2-days-left rule with no exceptions; the document says 75% (day 23) and allows a vacation
  override.
# expired prescriptions
? My refill request was rejected because the prescription expired. What now?
? Why does it say 'no refills remaining' on my {med}?
= Prescriptions expire 1 year after being written (controlled substances sooner) or when refills
  run out; Prescriptions > Request renewal sends a renewal request to the prescriber.
+ Prescriptions expire a year after they're written (controlled ones sooner) or when the refills
  run out. Use Prescriptions > Request renewal and we'll ask your prescriber for a new one.
> It needs a renewal: prescriptions expire after 1 year (controlled ones sooner) or when refills
  run out. Use Prescriptions > Request renewal.
- Our pharmacists can extend an expired prescription for another 90 days on request.
! Invents a pharmacist extension; the document says a renewal from the prescriber is needed.

@ kb/controlled-substances.md | prescriptions | 6
# signatures for controlled substances
? Why does my {cmed} delivery need a signature?
? Can my {cmed} be left at the door?
= Schedule II deliveries require the signature of an adult aged 21+ with ID; they cannot be left
  unattended or sent to a PO box.
+ Schedule II medicines like {cmed} must be signed for by an adult aged 21 or older with ID; they
  can't be left at the door or sent to a PO box.
> Schedule II medicines like {cmed} must be signed for by an adult 21+ with ID; they can't be left
  at the door or go to a PO box.
- You can waive the signature in your delivery preferences and have it left at the door.
! Says the signature can be waived; the document requires an adult signature for Schedule II
  deliveries.
# refills of Schedule II medicines
? Can I get refills on my {cmed}?
? Why can't I just reorder my {cmed} like my other medicines?
= Schedule II prescriptions cannot have refills; each fill needs a new electronic prescription,
  though prescribers may issue several dated prescriptions covering up to 90 days.
+ Schedule II prescriptions can't include refills, so each fill of {cmed} needs a new
  e-prescription. Your prescriber can write several dated prescriptions at once covering up to 90
  days.
> No refills: {cmed} is Schedule II, so each fill needs a new e-prescription, though your
  prescriber can issue dated prescriptions covering up to 90 days.
- Yes, Schedule II prescriptions can have up to 5 refills within 6 months.
! Applies the Schedule III–V refill rule to a Schedule II drug; Schedule II prescriptions cannot be
  refilled.

@ kb/insurance-and-copays.md | prescriptions | 6
# prior authorization
? My insurance says my {pa_med} needs prior authorization. What does that mean?
? Why is my {pa_med} prescription on hold for prior authorization?
= Prior authorization means the insurer needs the prescriber to justify the drug before paying; the
  pharmacy notifies the prescriber the same day, decisions usually take 2–5 business days, and the
  cash price can be paid meanwhile.
+ It means your insurer wants your prescriber to justify the medicine before it pays. We notify
  your prescriber the same day; insurers usually decide within 2–5 business days, and you can pay
  the cash price in the meantime if you need it sooner.
> Your insurer wants your prescriber to justify the drug first. We contact the prescriber the same
  day, decisions take 2–5 business days, and you can pay cash meanwhile.
- Prior authorization means your insurance has permanently denied the drug, so you'll have to pay
  the full price.
! Says prior authorization is a permanent denial; the document describes an approval step that
  usually takes 2–5 business days.
# paying with HSA or FSA cards
? Can I pay with my HSA card?
? Do you take FSA cards for prescriptions and OTC items?
? Can I use my FSA card to buy allergy medicine?
= HSA and FSA cards are accepted for prescriptions and for OTC products marked 'FSA/HSA eligible';
  non-eligible items in the same order need another payment method.
+ HSA and FSA cards work for prescriptions and for OTC products marked 'FSA/HSA eligible'. Any
  non-eligible items in the same order need a second payment method.
> Yes, for prescriptions and for OTC products marked 'FSA/HSA eligible'. Other items in the order
  need a second card.
- HSA and FSA cards can only be used for prescriptions, not for any OTC products.
! Excludes all OTC items; the document says eligible OTC products can be paid with HSA/FSA cards.

@ kb/ibuprofen-monograph.md | dosage | 5
# adult ibuprofen dosing
? How much ibuprofen can I take for a headache?
? What's the maximum ibuprofen per day without a prescription?
? Is it OK to take two 200 mg Advil tablets at once?
= Adults and children 12+: 200–400 mg every 4–6 hours as needed; do not exceed 1,200 mg in 24 hours
  unless directed by a doctor; take with food or milk.
+ Adults can take 200–400 mg (one or two tablets) every 4–6 hours as needed, with food or milk, and
  no more than 1,200 mg in 24 hours unless a doctor tells you otherwise.
> 200–400 mg every 4–6 hours with food, and no more than 1,200 mg in 24 hours without a doctor's
  advice.
- Adults can take 800 mg every 4 hours as needed, up to 4,800 mg a day.
! Recommends 800 mg every 4 hours and 4,800 mg a day, far above the 1,200 mg OTC limit (and the
  3,200 mg prescription maximum).
# taking ibuprofen with food
? Should I take ibuprofen with food?
? Is it OK to take Advil on an empty stomach?
= Take ibuprofen with food or milk if it upsets the stomach; use the lowest effective dose for the
  shortest time; stop and see a doctor for stomach pain or black stools.
+ Taking it with food or milk protects your stomach. Use the lowest dose that works for the
  shortest time, and stop and call a doctor if you get stomach pain or black stools.
> Take it with food or milk, at the lowest dose that works. Stop and see a doctor for stomach pain
  or black stools.
- Ibuprofen works best on an empty stomach, so take it at least an hour before eating.
! Advises an empty stomach; the monograph says to take it with food or milk.

@ kb/acetaminophen-monograph.md | dosage | 5
# the acetaminophen daily limit
? How many Extra Strength Tylenol can I take in a day?
? What's the daily limit for acetaminophen 500 mg?
? I've got a fever. How often can I take Tylenol 500 mg?
= Extra Strength (500 mg): 2 caplets every 6 hours as needed; no more than 6 caplets (3,000 mg) in
  24 hours unless directed by a doctor.
+ Take 2 caplets (1,000 mg) every 6 hours as needed, and no more than 6 caplets (3,000 mg) in 24
  hours unless your doctor says otherwise.
> 2 caplets (1,000 mg) every 6 hours, no more than 6 caplets (3,000 mg) in 24 hours unless your
  doctor says otherwise.
- You can take 2 caplets every 4 hours, up to 10 caplets (5,000 mg) a day.
! Gives 5,000 mg a day, above the 3,000 mg label limit and even the 4,000 mg absolute maximum; risk
  of liver damage.
# acetaminophen and alcohol
? Can I take Tylenol after a few drinks?
? I drink three glasses of wine most nights. Is acetaminophen safe for me?
= People who have 3 or more alcoholic drinks every day should ask a doctor before using
  acetaminophen, because of the risk of liver damage.
+ The label warns that if you have 3 or more alcoholic drinks every day, you should ask a doctor
  before taking acetaminophen, because the combination raises the risk of liver damage.
> If you have 3 or more drinks a day, ask a doctor before taking acetaminophen; together they raise
  the risk of liver damage.
- Alcohol doesn't interact with acetaminophen; only ibuprofen has an alcohol warning.
! Denies the liver-damage warning; the monograph says to ask a doctor first when having 3 or more
  drinks a day.

@ kb/pediatric-dosing-guide.md | dosage | 5
# children's ibuprofen by weight
? How much children's ibuprofen (100 mg/5 mL) can I give my {kid}?
? What's the right dose of children's Motrin for my {kid}, and how often?
= Children's ibuprofen 100 mg/5 mL is dosed by weight: {band}, {ml} every 6–8 hours as needed, no
  more than 4 doses in 24 hours; use the dosing cup from the package.
+ Dose by weight: for {band}, give {ml} of the 100 mg/5 mL suspension every 6–8 hours as needed,
  and no more than 4 doses in 24 hours. Use the dosing cup that comes in the box.
> {ml} of the 100 mg/5 mL suspension for {band}, every 6–8 hours, at most 4 doses in 24 hours. Use
  the cup from the box.
- At that age you can give {wrong_ml} every 4 hours as needed.
! Gives {wrong_ml} every 4 hours, double the weight-based dose and too often; the guide says {ml}
  every 6–8 hours, at most 4 doses a day.
# fever medicine for young infants
? My 4-month-old has a fever. Can I give baby ibuprofen?
? Is infant Motrin OK for a 3-month-old?
= Ibuprofen is not for infants under 6 months unless a doctor directs it; a baby under 3 months
  with a fever of 100.4°F (38°C) or higher needs a doctor right away.
+ Ibuprofen isn't recommended for babies under 6 months unless a doctor says so, so call your
  pediatrician. For babies under 3 months, a fever of 100.4°F (38°C) or higher needs a doctor right
  away.
> Not without a doctor: ibuprofen isn't for babies under 6 months. Call your pediatrician; under 3
  months, 100.4°F (38°C) or more needs a doctor now.
- Yes, infant ibuprofen drops are fine from birth; give 1.25 mL every 6 hours.
! Recommends ibuprofen for an infant under 6 months; the guide says not without a doctor's
  direction.

@ kb/amoxicillin-monograph.md | dosage | 5
# missed amoxicillin doses
? I forgot my amoxicillin dose this morning. Should I take two now?
? What do I do if my {relative} misses a dose of amoxicillin?
= Take a missed dose as soon as remembered unless it is almost time for the next one, then skip it;
  never double a dose; finish the full course.
+ Take the missed dose as soon as you remember, unless it's nearly time for the next one; in that
  case skip it and carry on. Never take two doses at once, and finish the whole course.
> Don't double up. Take it when you remember unless the next dose is close, then skip it, and
  finish the course.
- Take two doses together now to catch up, then continue as normal.
! Advises doubling the dose; the monograph says never to double up.
# stopping antibiotics early
? I feel better after 3 days of amoxicillin. Can I stop?
? Do I need to finish the whole course of amoxicillin if my symptoms are gone?
= Take amoxicillin for the full prescribed course even if symptoms improve, since stopping early
  can let the infection return; ask the prescriber before stopping.
+ Keep taking it for the full course your prescriber ordered, even if you feel better; stopping
  early can let the infection come back. Talk to your prescriber before stopping.
> No, finish the prescribed course even if you feel better, or the infection can come back. Ask
  your prescriber before stopping.
- Once you've been symptom-free for 24 hours you can stop; the rest of the pills are just a
  precaution.
! Tells the user to stop early; the monograph says to finish the prescribed course.

@ kb/metformin-monograph.md | dosage | 5
# taking metformin with food
? Should metformin be taken with meals?
? Metformin upsets my stomach. Any tips on when to take it?
? Can I take my extended-release metformin in the morning on an empty stomach?
= Take metformin with meals to reduce stomach upset; extended-release is taken once daily with the
  evening meal and swallowed whole, never crushed or chewed.
+ Take it with meals, which reduces stomach upset. If you're on the extended-release version, take
  it once a day with your evening meal and swallow it whole; don't crush or chew it.
> Take it with meals to ease stomach upset. Extended-release goes once daily with the evening meal,
  swallowed whole, never crushed.
- Take metformin on an empty stomach first thing in the morning; crushing the extended-release
  tablet helps if it's hard to swallow.
! Advises an empty stomach and crushing ER tablets; the monograph says to take it with meals and
  swallow ER tablets whole.
# the maximum metformin dose
? What's the highest dose of metformin?
? My doctor keeps raising my metformin. Is there a maximum?
= Immediate-release: up to 2,550 mg a day in divided doses; extended-release: up to 2,000 mg once
  daily; the prescriber adjusts the dose gradually.
+ The maximum is 2,550 mg a day for immediate-release, split across meals, and 2,000 mg once a day
  for extended-release. Your prescriber raises it gradually.
> 2,550 mg a day for immediate-release (split across meals) or 2,000 mg once daily for
  extended-release.
- The maximum is 1,000 mg a day; anything above that is unsafe.
! States a 1,000 mg daily maximum; the monograph gives 2,550 mg (IR) and 2,000 mg (ER).

@ kb/levothyroxine-monograph.md | dosage | 5
# when to take levothyroxine
? When is the best time to take levothyroxine?
? Can I take my Synthroid with my morning coffee?
? Should I take levothyroxine with breakfast or before it?
= Take levothyroxine once daily on an empty stomach with a full glass of water, 30–60 minutes
  before breakfast; coffee also reduces absorption.
+ Take it once a day on an empty stomach with a full glass of water, 30–60 minutes before
  breakfast. Wait before your coffee too, because it reduces absorption.
> On an empty stomach with water, 30–60 minutes before breakfast, and before your coffee, which
  cuts absorption.
- Take it with breakfast and coffee; food helps absorption.
! Says to take it with food and coffee; the monograph says on an empty stomach, 30–60 minutes
  before breakfast.
# missed levothyroxine doses
? I missed my thyroid pill yesterday. Do I take two today?
? What if I forget a dose of levothyroxine?
= Take a missed dose as soon as remembered; if it is almost time for the next dose, skip it; do not
  take two doses at once unless the prescriber says so.
+ Take it as soon as you remember; if it's almost time for the next dose, skip the missed one.
  Don't take two doses at once unless your prescriber has told you to.
> Don't take two at once unless your prescriber says so. Take it when you remember, or skip it if
  the next dose is close.
- Always take a double dose the next day to make up for a missed one.
! Advises routine doubling; the monograph says not to double up unless the prescriber says so.

@ kb/warfarin-monograph.md | drug_interactions | 5
# warfarin and NSAID pain relievers
? I'm on warfarin. Can I take {nsaid} for a sore knee?
? Is it safe for {person} to take {nsaid} with Coumadin?
= NSAIDs such as ibuprofen and naproxen raise bleeding risk with warfarin and should be avoided
  unless the prescriber approves; acetaminophen at the lowest effective dose is preferred.
+ {nsaid_cap} is an NSAID, and NSAIDs raise the risk of serious bleeding with warfarin, so avoid it
  unless the prescriber approves. Acetaminophen is usually the preferred pain reliever, at the
  lowest dose that works.
> Avoid {nsaid}: NSAIDs raise the risk of serious bleeding with warfarin. Use acetaminophen at the
  lowest dose instead, unless the prescriber approves otherwise.
- Yes, {nsaid} is fine for a few days alongside warfarin; just take it with food.
! Misses the warfarin–NSAID bleeding interaction and approves {nsaid}; the monograph says to avoid
  NSAIDs unless the prescriber approves.
# warfarin and fluconazole
? My doctor prescribed fluconazole for a yeast infection and I take warfarin. Is that a problem?
? Can I take Diflucan while I'm on warfarin?
= Fluconazole strongly increases warfarin's effect (higher INR, bleeding risk); the prescriber and
  anticoagulation clinic must be told, INR checked within a few days, and the warfarin dose may be
  lowered.
+ Fluconazole can sharply raise your INR and bleeding risk on warfarin. Tell the prescriber and
  your anticoagulation clinic before starting; they'll usually check your INR within a few days and
  may lower your warfarin dose.
> It's a major interaction: fluconazole raises the INR and bleeding risk on warfarin. Tell your
  anticoagulation clinic before starting; expect an INR check within days and maybe a lower dose.
- A single course of fluconazole doesn't affect warfarin, so no changes are needed.
! Says there is no interaction; fluconazole markedly raises the INR and requires monitoring.
# warfarin and vitamin K foods
? On warfarin, do I have to stop eating spinach and kale?
? Can I still eat salad while taking warfarin?
= Vitamin K foods do not need to be avoided on warfarin; keep intake consistent week to week and
  tell the clinic before big diet changes.
+ There's no need to cut them out. Keep the amount of vitamin K foods like spinach and kale steady
  from week to week, and tell your clinic before making big changes to your diet.
> You don't need to avoid them: keep the amount of vitamin K foods steady week to week, and tell
  your clinic before big diet changes.
- You should avoid all green vegetables completely while you're on warfarin.
! Says to avoid all greens; the monograph advises a consistent vitamin K intake, not avoidance.

@ kb/ssri-interactions.md | drug_interactions | 5
# SSRIs and tramadol
? I take {ssri}. My dentist wants to give me tramadol. Is that OK?
? Can tramadol be combined with {ssri}?
= Tramadol with SSRIs raises the risk of serotonin syndrome and seizures; the prescriber must be
  told so an alternative can be considered; watch for agitation, fever, tremor or a fast heartbeat.
+ Tramadol with {ssri} can cause serotonin syndrome and raises the risk of seizures. Tell the
  prescriber about the {ssri} so they can consider another pain reliever, and get help for
  agitation, fever, shaking or a racing heart.
> Not without your prescriber: tramadol with {ssri} risks serotonin syndrome and seizures. Ask for
  a different pain reliever.
- Yes, tramadol and {ssri} can be taken together; tramadol is a mild painkiller.
! Misses the serotonin syndrome and seizure risk of tramadol with {ssri}.
# SSRIs and St. John's wort
? Can I take St. John's wort with my {ssri}?
? Is it OK to add St. John's wort supplements to {ssri}?
= St. John's wort must not be combined with SSRIs because of the risk of serotonin syndrome; tell
  the prescriber about all supplements.
+ St. John's wort together with {ssri} can cause serotonin syndrome, so don't combine them, and
  tell your prescriber about any supplements you take.
> No. St. John's wort with {ssri} can cause serotonin syndrome; tell your prescriber about any
  supplements.
- St. John's wort is a natural supplement, so it's safe to take alongside {ssri}.
! Calls the combination safe; St. John's wort with an SSRI risks serotonin syndrome.
# SSRIs and NSAIDs
? I'm on {ssri}. Can I take ibuprofen for cramps?
? Any problem taking Advil with {ssri}?
= SSRIs combined with NSAIDs increase the risk of stomach bleeding; acetaminophen is preferred;
  check with the pharmacist, especially over 65 or on a blood thinner.
+ Taking ibuprofen with {ssri} raises the risk of stomach bleeding. Acetaminophen is usually the
  safer choice; if you need ibuprofen, keep it short and check with the pharmacist first,
  especially if you're over 65 or take a blood thinner.
> Ibuprofen with {ssri} raises the risk of stomach bleeding, so acetaminophen is the safer pick;
  check with the pharmacist before using ibuprofen.
- There's no interaction between ibuprofen and {ssri}; take them as usual.
! Misses the increased stomach-bleeding risk of NSAIDs with SSRIs.

@ kb/statin-interactions.md | drug_interactions | 4
# simvastatin and grapefruit
? Can I drink grapefruit juice with simvastatin?
? I take Zocor. Is grapefruit for breakfast a problem?
= Avoid grapefruit and grapefruit juice with simvastatin: it raises simvastatin blood levels and
  the risk of muscle damage (myopathy, rhabdomyolysis); report unexplained muscle pain.
+ Grapefruit and grapefruit juice raise the level of simvastatin in your blood and the risk of
  muscle damage, so avoid them. Report any unexplained muscle pain or weakness to your doctor.
> Avoid grapefruit and its juice: it raises simvastatin levels and the risk of muscle damage.
  Report unexplained muscle pain.
- Grapefruit is fine with simvastatin; that warning only applies to blood pressure medicines.
! Says grapefruit is fine; it raises simvastatin levels and the risk of myopathy.
# simvastatin and clarithromycin
? I'm on simvastatin and was just prescribed clarithromycin. Can I take both?
? Does clarithromycin interact with my cholesterol pill, simvastatin?
= Clarithromycin is contraindicated with simvastatin (risk of rhabdomyolysis); the prescriber must
  be told, and simvastatin is usually paused during the antibiotic course.
+ Clarithromycin with simvastatin is contraindicated because it can cause severe muscle breakdown.
  Tell the prescriber; simvastatin is usually paused for the length of the antibiotic course.
> Not together: the combination is contraindicated (severe muscle breakdown). The prescriber will
  usually pause simvastatin during the course.
- Yes, you can take both; just space them 2 hours apart.
! Misses a contraindicated combination; spacing the doses does not prevent the
  clarithromycin–simvastatin interaction.

@ kb/maoi-precautions.md | drug_interactions | 3
# MAOIs and decongestants
? I take phenelzine. Can I use Sudafed for a cold?
? Is pseudoephedrine OK with an MAOI like Nardil?
= Pseudoephedrine and other decongestants are contraindicated with MAOIs (risk of hypertensive
  crisis); use saline spray and ask the pharmacist for safe options.
+ Pseudoephedrine (Sudafed) with an MAOI can cause a dangerous spike in blood pressure. Use a
  saline spray instead and ask the pharmacist before taking any cold medicine.
> No. Pseudoephedrine with an MAOI can cause a dangerous blood-pressure spike; use saline spray and
  ask the pharmacist about cold medicines.
- Sudafed is fine for a few days; just avoid alcohol while you take it.
! Approves pseudoephedrine with an MAOI; the combination can cause a hypertensive crisis.
# MAOIs and dextromethorphan
? Can I take a cough syrup with dextromethorphan while on an MAOI?
? Is Robitussin DM safe with phenelzine?
= Dextromethorphan is contraindicated with MAOIs and for 14 days after stopping one, because of the
  risk of serotonin syndrome.
+ Dextromethorphan with an MAOI, or within 14 days of stopping one, can cause serotonin syndrome.
  Ask the pharmacist for a cough remedy that is safe with your medicine.
> No. Dextromethorphan with an MAOI, or within 14 days of stopping one, risks serotonin syndrome.
- Dextromethorphan is a non-drowsy cough suppressant and is safe with MAOIs.
! Misses the contraindication; dextromethorphan with an MAOI risks serotonin syndrome.

@ kb/otc-combination-guide.md | drug_interactions | 5
# acetaminophen in cold medicines
? Can I take NyQuil and Tylenol together?
? I took DayQuil this morning. Can I also take Tylenol for my headache?
? Is it OK to take Extra Strength Tylenol with a multi-symptom cold medicine?
= Many cold and flu products (NyQuil, DayQuil, multi-symptom remedies) already contain
  acetaminophen; adding Tylenol risks exceeding the daily limit and liver damage. Check labels and
  count total acetaminophen.
+ NyQuil, DayQuil and many multi-symptom cold medicines already contain acetaminophen, the same
  drug as Tylenol. Taking both can push you over the daily limit and damage your liver, so check
  the labels and count your total acetaminophen.
> Only after checking labels: NyQuil, DayQuil and many cold medicines already contain
  acetaminophen, so adding Tylenol can exceed the daily limit and harm the liver.
- Yes, they work differently, so you can take Tylenol on top of a cold medicine.
! Misses the duplicate acetaminophen in combination cold products and the overdose risk.
# diphenhydramine and alcohol
? Can I have a beer after taking Benadryl?
? Is it OK to take a diphenhydramine sleep aid after a couple of glasses of wine?
= Avoid alcohol with diphenhydramine (Benadryl, ZzzQuil): it markedly increases drowsiness and
  impairment; do not drive.
+ Alcohol and diphenhydramine together greatly increase drowsiness and impairment, so avoid
  drinking while it's in your system, and don't drive or operate machinery.
> Better not: alcohol with diphenhydramine sharply increases drowsiness and impairment. Don't
  drive.
- A drink or two is fine with Benadryl; it's a non-drowsy antihistamine.
! Calls diphenhydramine non-drowsy and approves alcohol; the guide says to avoid alcohol with it.

@ kb/antibiotic-interactions.md | drug_interactions | 4
# ciprofloxacin with calcium or antacids
? Can I take cipro with my calcium supplement?
? Does it matter if I take ciprofloxacin with milk or Tums?
= Take ciprofloxacin at least 2 hours before or 6 hours after antacids, calcium, iron, zinc or
  dairy on its own, because they block its absorption.
+ Take ciprofloxacin at least 2 hours before or 6 hours after calcium, antacids like Tums, iron,
  zinc or milk on its own, because they stop it from being absorbed.
> Space them: take cipro 2 hours before or 6 hours after calcium, antacids, iron, zinc or dairy,
  which block its absorption.
- Taking cipro with milk or calcium actually protects your stomach, so take them together.
! Advises taking ciprofloxacin with calcium or dairy; they block absorption and must be separated
  (2 h before or 6 h after).
# metronidazole and alcohol
? Can I drink alcohol while on metronidazole?
? I finish my Flagyl tomorrow. When can I have a glass of wine?
= No alcohol during metronidazole treatment and for at least 3 days (72 hours) after the last dose:
  risk of severe nausea, vomiting, flushing and a fast heartbeat.
+ Avoid alcohol while taking metronidazole and for at least 3 days after your last dose; the
  combination can cause severe nausea, vomiting, flushing and a racing heart.
> No alcohol during treatment or for at least 3 days after the last dose; it can cause severe
  nausea, vomiting, flushing and a racing heart.
- A glass of wine is fine once you've taken your last dose.
! Allows alcohol right after the last dose; the guidance is to wait at least 72 hours.

@ kb/cardiac-drug-interactions.md | drug_interactions | 4
# sildenafil and nitrates
? My husband uses nitroglycerin for angina. Can he take Viagra?
? Is sildenafil safe with isosorbide mononitrate?
= Sildenafil (and other PDE5 inhibitors) is contraindicated with any nitrate, such as nitroglycerin
  or isosorbide: severe, possibly fatal drop in blood pressure.
+ Sildenafil (Viagra) must not be used with any nitrate such as nitroglycerin or isosorbide;
  together they can cause a severe, life-threatening drop in blood pressure. Ask the cardiologist
  about alternatives.
> No. Sildenafil with any nitrate, like nitroglycerin or isosorbide, can cause a life-threatening
  drop in blood pressure.
- Yes, as long as the two are taken a few hours apart.
! Approves a contraindicated combination; spacing the doses does not make sildenafil safe with
  nitrates.
# clopidogrel and omeprazole
? Can I take omeprazole for heartburn with Plavix?
? I take clopidogrel. Which heartburn pill is safe?
= Omeprazole and esomeprazole reduce clopidogrel's antiplatelet effect and should be avoided;
  pantoprazole or famotidine is preferred, after checking with the prescriber.
+ Omeprazole and esomeprazole make clopidogrel less effective at preventing clots, so avoid them.
  Pantoprazole or famotidine are usually preferred; check with your prescriber.
> Avoid omeprazole and esomeprazole, which weaken clopidogrel. Pantoprazole or famotidine is
  usually preferred; check with your prescriber.
- Omeprazole is the recommended stomach protector with clopidogrel; take 20 mg daily.
! Recommends omeprazole, which reduces clopidogrel's antiplatelet effect.
# lisinopril and potassium
? I take lisinopril. Can I use a salt substitute?
? Is it OK to take potassium supplements with lisinopril?
= ACE inhibitors such as lisinopril raise potassium; potassium supplements and potassium-based salt
  substitutes can cause hyperkalemia and need the prescriber's approval and blood tests.
+ Lisinopril raises potassium levels, and potassium supplements or potassium-based salt substitutes
  can push it dangerously high. Only use them if your prescriber approves and checks your blood
  levels.
> Not without your doctor's OK: lisinopril raises potassium, and potassium supplements or salt
  substitutes can push it dangerously high.
- Yes, salt substitutes are a healthy choice with lisinopril since they cut your sodium.
! Misses the hyperkalemia risk of potassium-based salt substitutes with an ACE inhibitor.
"""

# Slot fillers for the {slots} in BANK; a dict fills several related slots at once.
FILLERS: dict[str, tuple] = {
    "person": ("me", "my mother", "my husband", "my dad", "my wife", "my grandmother"),
    "relative": ("mother", "father", "husband", "wife", "grandmother", "partner", "adult son"),
    "city": ("Denver", "Tulsa", "Boise", "Savannah", "Duluth", "Albany", "Fresno", "Omaha"),
    "country": ("Canada", "Mexico", "the UK", "Germany", "Japan", "Australia"),
    "old_pharmacy": ("my local pharmacy", "my old pharmacy", "the pharmacy near my office"),
    "med": ("metformin", "lisinopril", "atorvastatin", "levothyroxine", "amlodipine"),
    "cmed": ("Adderall", "oxycodone", "Vyvanse", "hydrocodone"),
    "pa_med": ("Ozempic", "Humira", "Jardiance", "Eliquis"),
    "ssri": ("sertraline", "Zoloft", "fluoxetine", "Prozac", "escitalopram", "Lexapro"),
    "nsaid": (
        {"nsaid": "ibuprofen", "nsaid_cap": "Ibuprofen"},
        {"nsaid": "Advil", "nsaid_cap": "Advil (ibuprofen)"},
        {"nsaid": "naproxen", "nsaid_cap": "Naproxen"},
        {"nsaid": "Aleve", "nsaid_cap": "Aleve (naproxen)"},
    ),
    "kid": (  # children's ibuprofen 100 mg/5 mL, label dose by weight band
        {"kid": "30-pound 3-year-old", "band": "24–35 lb", "ml": "5 mL", "wrong_ml": "10 mL"},
        {"kid": "40-pound 5-year-old", "band": "36–47 lb", "ml": "7.5 mL", "wrong_ml": "15 mL"},
        {"kid": "52-pound 7-year-old", "band": "48–59 lb", "ml": "10 mL", "wrong_ml": "20 mL"},
        {"kid": "65-pound 9-year-old", "band": "60–71 lb", "ml": "12.5 mL", "wrong_ml": "25 mL"},
    ),
}


class Fact(NamedTuple):
    """One answerable question type in a knowledge-base document."""

    topic: str
    questions: tuple[str, ...]  # phrasings, with {slots} from FILLERS
    target: str  # reference answer; also the passage the retriever returns
    good: str  # a correct answer, as V1 words it
    concise: str  # a correct answer, as V2 words it (direct answer first)
    bad: str  # a specific, visibly wrong answer
    why: str  # the judge's reason when `bad` is given


class Doc(NamedTuple):
    path: str  # the item's cluster
    slice_name: str
    n_items: int
    facts: tuple[Fact, ...]


TAGS = {"=": "target", "+": "good", ">": "concise", "-": "bad", "!": "why"}


def parse_bank(text: str) -> tuple[Doc, ...]:
    """Parse BANK: one tagged line per field, indented lines continue the line above."""
    lines: list[str] = []
    for raw in text.strip().splitlines():
        if raw.startswith("  "):
            lines[-1] += " " + raw.strip()
        elif raw:
            lines.append(raw)
    docs: list[tuple[str, str, int, list[dict]]] = []
    for line in lines:
        tag, rest = line[0], line[2:]
        if tag == "@":
            path, slice_name, n_items = (part.strip() for part in rest.split("|"))
            docs.append((path, slice_name, int(n_items), []))
        elif tag == "#":
            docs[-1][3].append({"topic": rest, "questions": ()})
        elif tag == "?":
            docs[-1][3][-1]["questions"] += (rest,)
        else:
            docs[-1][3][-1][TAGS[tag]] = rest
    return tuple(Doc(p, s, n, tuple(Fact(**f) for f in facts)) for p, s, n, facts in docs)


DOCS = parse_bank(BANK)


class Turn(NamedTuple):
    question: str
    fact: Fact
    retrieved: bool


@dataclass
class Item:
    doc: Doc
    fill: dict[str, str]
    turns: list[Turn]  # earlier exchanges, then the graded question
    item_id: str = ""
    outcome: str = ""
    modes: dict[str, str] = field(default_factory=dict)  # arm -> pass/bad/deflect/error/timeout_*

    @property
    def fact(self) -> Fact:
        return self.turns[-1].fact


def pick_fill(rng: random.Random) -> dict[str, str]:
    fill: dict[str, str] = {}
    for name, values in FILLERS.items():
        value = rng.choice(values)
        fill.update(value if isinstance(value, dict) else {name: value})
    fill["order"] = f"#LP-{rng.randrange(100_000, 1_000_000)}"
    return fill


def make_item(rng: random.Random, doc: Doc, k: int, seen: set[str]) -> Item:
    """The k-th item of `doc`: facts in rotation, phrasings in rotation, slots at random."""
    facts = doc.facts
    fact = facts[k % len(facts)]
    n_user = 1
    if rng.random() < MULTI_TURN_RATE:
        n_user = 3 if len(facts) >= 3 and rng.random() < THREE_TURN_RATE else 2
    earlier = [facts[(k + j) % len(facts)] for j in range(1, n_user)]
    for attempt in range(100):
        fill = pick_fill(rng)
        variant = (k // len(facts) + attempt) % len(fact.questions)
        core = fact.questions[variant].format(**fill)
        if core not in seen:  # no question is asked twice, greetings aside
            break
    else:
        raise RuntimeError(f"cannot find a new phrasing for {doc.path} item {k}")
    seen.add(core)
    question = rng.choice(FOLLOW_UPS if earlier else OPENERS) + core
    turns = [
        Turn(rng.choice(f.questions).format(**fill), f, rng.random() < RETRIEVAL_RATE)
        for f in earlier
    ]
    if turns:
        turns[0] = turns[0]._replace(question=rng.choice(OPENERS) + turns[0].question)
    turns.append(Turn(question, fact, rng.random() < RETRIEVAL_RATE))
    return Item(doc, fill, turns)


def build_items(rng: random.Random) -> list[Item]:
    seen: set[str] = set()
    items = [make_item(rng, doc, k, seen) for doc in DOCS for k in range(doc.n_items)]
    rng.shuffle(items)  # ids interleave slices, as in a real golden set
    for number, item in enumerate(items, start=1):
        item.item_id = f"pharm-{number:04d}"
    return items


def assign_outcomes(items: list[Item], rng: random.Random) -> None:
    """Deal each slice's paired outcomes, then pick failure modes and the three non-ok rows."""
    by_slice: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_slice[item.doc.slice_name].append(item)
    for name, counts in EXPECTED.items():
        labels = [o for o, c in zip(OUTCOMES, counts, strict=True) for _ in range(c)]
        rng.shuffle(labels)
        for item, label in zip(by_slice[name], labels, strict=True):
            item.outcome = label
            for arm, passed in zip(ARMS, VERDICTS[label], strict=True):
                item.modes[arm] = "pass" if passed else "bad"
            # V1's cautious prompt sends policy questions to support instead of answering.
            deflect_rate = {"improvement": 0.5, "both_fail": 0.3}.get(label, 0.0)
            if name not in MEDICAL and rng.random() < deflect_rate:
                item.modes["baseline"] = "deflect"

    def first(slice_name: str, outcome: str) -> Item:
        return next(i for i in by_slice[slice_name] if i.outcome == outcome)

    first("shipping", "improvement").modes["baseline"] = "error"
    first("dosage", "regression").modes["candidate"] = "timeout_cut"
    first("account", "both_fail").modes["candidate"] = "timeout_empty"


def answer(
    arm: str, mode: str, fact: Fact, doc: Doc, fill: dict[str, str], rng: random.Random
) -> str:
    """The assistant's text in the style of the arm's system prompt."""
    if mode in ("error", "timeout_empty"):
        return ""
    if mode == "timeout_cut":
        words = answer(arm, "pass", fact, doc, fill, rng).split()
        return " ".join(words[: len(words) * 11 // 20]).rstrip(".,;:")
    if mode == "deflect":
        return rng.choice(("", "Thank you for your question. ")) + DEFLECT.format(topic=fact.topic)
    if arm == "baseline":
        text = (fact.good if mode == "pass" else fact.bad).format(**fill)
        close = rng.choice(V1_CLOSE[doc.slice_name in MEDICAL])
        return f"{rng.choice(V1_OPEN)}{text} {close} (Source: {doc.path})"
    text = (fact.concise if mode == "pass" else fact.bad).format(**fill)
    return f"{text} [Source: {doc.path}]"


def explain(mode: str, fact: Fact, doc: Doc, fill: dict[str, str], rng: random.Random) -> str:
    if mode == "pass":
        return rng.choice(PASS_WHY[doc.slice_name in MEDICAL]).format(
            topic=fact.topic, doc=doc.path
        )
    if mode == "bad":
        return rng.choice(("", "Incorrect. ")) + fact.why.format(**fill)
    return FAIL_WHY[mode].format(topic=fact.topic, doc=doc.path)


def record(arm: str, item: Item) -> dict[str, object]:
    rng = random.Random(f"{SEED}:{item.item_id}:{arm}")
    doc, fill, mode = item.doc, item.fill, item.modes[arm]
    messages = [{"role": "system", "content": SYSTEM[arm]}]
    for number, turn in enumerate(item.turns, start=1):
        messages.append({"role": "user", "content": turn.question})
        if turn.retrieved:
            passage = turn.fact.target.format(**fill)
            messages.append({"role": "tool", "content": f"Retrieved from {doc.path}:\n{passage}"})
        turn_mode = mode if number == len(item.turns) else "pass"
        content = answer(arm, turn_mode, turn.fact, doc, fill, rng)
        messages.append({"role": "assistant", "content": content})
    return {
        "item_id": item.item_id,
        "passed": mode == "pass",
        "status": STATUS_OF_MODE.get(mode, "ok"),
        "slice": doc.slice_name,
        "cluster": doc.path,
        "input": item.turns[-1].question,
        "output": messages[-1]["content"],
        "target": item.fact.target.format(**fill),
        "explanation": explain(mode, item.fact, doc, fill, rng),
        "messages": messages,
    }


def write_jsonl(path: Path, records: list[dict[str, object]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as handle:
        for row in records:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_jsonl(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle]


def paired_counts(pairs: list[tuple[bool, bool]]) -> tuple[int, ...]:
    """(both pass, regressions, improvements, both fail) for (baseline, candidate) verdicts."""
    tally = Counter(pairs)
    return tuple(tally[VERDICTS[o]] for o in OUTCOMES)


def without_lead(question: str) -> str:
    """The question without its greeting or follow-up lead-in."""
    for lead in OPENERS + FOLLOW_UPS:
        if lead and question.startswith(lead):
            return question[len(lead) :]
    return question


def check_and_report() -> None:
    """Re-read the written files, assert every promised property, print the tables."""
    runs = {arm: read_jsonl(OUT[arm]) for arm in ARMS}
    base = {r["item_id"]: r for r in runs["baseline"]}
    cand = {r["item_id"]: r for r in runs["candidate"]}
    assert len(base) == len(cand) == len(runs["baseline"]) == len(runs["candidate"]) == 200
    assert set(base) == set(cand) == {f"pharm-{n:04d}" for n in range(1, 201)}
    assert [r["item_id"] for r in runs["candidate"]] != [r["item_id"] for r in runs["baseline"]]
    for arm, rows in runs.items():
        questions = {without_lead(str(r["input"])) for r in rows}
        assert len(questions) == len(rows), "no question may repeat, greetings aside"
        for r in rows:
            assert tuple(r) == FIELDS, r["item_id"]
            assert isinstance(r["passed"], bool)
            assert r["status"] == "ok" or r["passed"] is False
            msgs = r["messages"]
            assert msgs[0] == {"role": "system", "content": SYSTEM[arm]}
            assert msgs[-1]["role"] == "assistant" and msgs[-1]["content"] == r["output"]
            assert {m["role"] for m in msgs} <= {"system", "user", "tool", "assistant"}
    assert Counter(r["status"] for r in runs["baseline"]) == {"ok": 199, "error": 1}
    assert Counter(r["status"] for r in runs["candidate"]) == {"ok": 198, "timeout": 2}
    for item_id, b in base.items():
        c = cand[item_id]
        assert (b["slice"], b["cluster"], b["input"]) == (c["slice"], c["cluster"], c["input"])
        assert b["output"] != c["output"], item_id

    pairs = {iid: (base[iid]["passed"], cand[iid]["passed"]) for iid in base}
    slice_of = {iid: r["slice"] for iid, r in base.items()}
    total = paired_counts(list(pairs.values()))
    assert total == EXPECTED_TOTAL, total
    header = f"{'slice':<18} {'n':>4} {'both':>5} {'regr':>5} {'impr':>5} {'fail':>5}"
    print(f"{header} {'base':>5} {'cand':>5}")
    for name, expected in [*EXPECTED.items(), ("total", EXPECTED_TOTAL)]:
        chosen = [p for iid, p in pairs.items() if name in ("total", slice_of[iid])]
        counts = paired_counts(chosen)
        assert counts == expected, (name, counts, expected)
        n_base, n_cand = sum(b for b, _ in chosen), sum(c for _, c in chosen)
        cells = " ".join(f"{x:>5}" for x in (*counts, n_base, n_cand))
        print(f"{name:<18} {len(chosen):>4} {cells}")
    di = [p for iid, p in pairs.items() if slice_of[iid] == "drug_interactions"]
    assert (len(di), sum(b for b, _ in di), sum(c for _, c in di)) == (30, 25, 19)

    clusters = Counter(r["cluster"] for r in runs["baseline"])
    assert 30 <= len(clusters) <= 40 and all(3 <= n <= 12 for n in clusters.values())
    assert len({(r["cluster"], r["slice"]) for r in runs["baseline"]}) == len(clusters)
    user_turns = Counter(sum(m["role"] == "user" for m in r["messages"]) for r in runs["baseline"])
    with_tool = sum(any(m["role"] == "tool" for m in r["messages"]) for r in runs["baseline"])
    odd = sorted(
        (r["item_id"], arm, r["status"]) for arm in ARMS for r in runs[arm] if r["status"] != "ok"
    )
    sizes = sorted(clusters.values())
    print(f"clusters: {len(clusters)} (items per cluster: {sizes[0]} to {sizes[-1]})")
    print(f"user turns per item: {dict(sorted(user_turns.items()))}; with retrieval: {with_tool}")
    print("non-ok rows: " + ", ".join(f"{i} {arm} {s}" for i, arm, s in odd))
    for arm in ARMS:
        print(f"{OUT[arm].relative_to(HERE.parent)}: {OUT[arm].stat().st_size} bytes")


def main() -> None:
    rng = random.Random(SEED)
    items = build_items(rng)
    assign_outcomes(items, rng)
    items.sort(key=lambda i: i.item_id)
    write_jsonl(OUT["baseline"], [record("baseline", i) for i in items])
    candidate = [record("candidate", i) for i in items]
    rng.shuffle(candidate)  # pairing is by item_id, never by line
    write_jsonl(OUT["candidate"], candidate)
    check_and_report()


if __name__ == "__main__":
    main()
